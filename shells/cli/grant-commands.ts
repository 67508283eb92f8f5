import type { Command } from 'commander';
import { Grants, type GrantView } from '../../application/auth/grants.js';
import { action } from './context.js';
import { print, table } from './output.js';

const target = (g: GrantView) => (g.lock === 'workspace' ? `workspace ${g.workspace}` : g.lock);

/** `grant list [--user H]` and `grant revoke ID`: the authorizations clients hold, and taking one back. */
export function registerGrantCommands(program: Command): void {
  const grant = program.command('grant').description('list and revoke the authorizations MCP clients hold');
  grant
    .command('list')
    .description('list grants, newest first')
    .option('--user <handle>', 'only the grants of this user')
    .action(
      action(async (app, options) => {
        const grants = await app.container.get(Grants).list({ handle: options.user as string | undefined });
        print(options, grants, () =>
          table(
            grants.map((g) => ({ ...g, client: g.clientName ?? g.clientId, target: target(g) })),
            ['id', 'user', 'client', 'target', 'status', 'createdAt', 'sessionExpiresAt'],
          ),
        );
      }, 'read'),
    );
  grant
    .command('revoke <id>')
    .description("revoke a grant: its client's tokens stop working at once")
    .action(
      action(async (app, options, id: string) => {
        const revoked = await app.container.get(Grants).revoke(id);
        print(options, revoked, () => [`revoked grant ${revoked.id} (${revoked.user ?? revoked.userId}, ${revoked.clientName ?? revoked.clientId})`]);
      }),
    );
}
