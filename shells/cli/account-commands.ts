import type { Command } from 'commander';
import { AdminAccounts } from '../../application/accounts/admin-accounts.js';
import { action } from './context.js';
import { print, readStdin, table } from './output.js';

export function registerAccountCommands(program: Command): void {
  registerUserCommands(program);
  registerWorkspaceCommands(program);
}

/** `user add|list|set-plan`. */
function registerUserCommands(program: Command): void {
  const user = program.command('user').description('manage user accounts');
  user
    .command('add')
    .description('create a user')
    .requiredOption('--handle <handle>', 'subdomain handle, [a-z0-9-]')
    .requiredOption('--email <email>', 'email address (sign-in name)')
    .option('--plan <plan>', 'free or pro', 'free')
    .option('--password-stdin', 'read the password from standard input')
    .action(
      action(async (app, options) => {
        const password = options.passwordStdin ? await readStdin(options.io) : null;
        const created = await app.container.get(AdminAccounts).addUser({ handle: options.handle, email: options.email, plan: options.plan, password });
        print(options, created, () => [`created user ${created.handle} <${created.email}> (${created.plan}) id ${created.id}`]);
      }),
    );
  user
    .command('list')
    .description('list users')
    .action(
      action(async (app, options) => {
        const users = await app.container.get(AdminAccounts).listUsers();
        print(options, users, () => table(users as unknown as Array<Record<string, unknown>>, ['handle', 'email', 'plan', 'id', 'createdAt']));
      }, 'read'),
    );
  user
    .command('set-plan <handle> <plan>')
    .description('change a user\'s plan (free or pro)')
    .action(
      action(async (app, options, handle: string, plan: string) => {
        const updated = await app.container.get(AdminAccounts).setPlan(handle, plan);
        print(options, updated, () => [`${updated.handle} is now on the ${updated.plan} plan`]);
      }),
    );
}

/** `workspace add|list` and `workspace member add`. */
function registerWorkspaceCommands(program: Command): void {
  const workspace = program.command('workspace').description('manage workspaces');
  workspace
    .command('add')
    .description('create a workspace')
    .requiredOption('--slug <slug>', 'subdomain slug, [a-z0-9-]')
    .requiredOption('--name <name>', 'display name')
    .action(
      action(async (app, options) => {
        const created = await app.container.get(AdminAccounts).addWorkspace({ slug: options.slug, name: options.name });
        print(options, created, () => [`created workspace ${created.slug} ("${created.name}") id ${created.id}`]);
      }),
    );
  workspace
    .command('list')
    .description('list workspaces')
    .action(
      action(async (app, options) => {
        const all = await app.container.get(AdminAccounts).listWorkspaces();
        print(options, all, () => table(all as unknown as Array<Record<string, unknown>>, ['slug', 'name', 'id', 'createdAt']));
      }, 'read'),
    );
  const member = workspace.command('member').description('manage workspace members');
  member
    .command('add')
    .description('add a user to a workspace (or change their role)')
    .requiredOption('--workspace <slug>', 'workspace slug')
    .requiredOption('--user <handle>', 'user handle')
    .option('--role <role>', 'admin or member', 'member')
    .action(
      action(async (app, options) => {
        const m = await app.container.get(AdminAccounts).addMember({ workspace: String(options.workspace), handle: String(options.user), role: options.role });
        print(options, m, () => [`${m.user} is ${m.role === 'admin' ? 'an admin' : 'a member'} of ${m.workspace}`]);
      }),
    );
}
