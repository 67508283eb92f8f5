import type { Command } from 'commander';
import { AccountStore } from '../../application/ports/account-store.js';
import { ManageConnections, type ConnectionSummary } from '../../application/connections/manage-connections.js';
import { DomainError, invalid } from '../../domain/errors.js';
import { connectionJson } from '../presenters/connections/connection-presenters.js';
import { action } from './context.js';
import { print, readStdin, table, type GlobalOptions } from './output.js';

/** `connection "<label>" <id>: <status>`, with the last error when there is one. */
function printStatus(options: GlobalOptions, summary: ConnectionSummary): void {
  const connection = connectionJson(summary);
  print(options, connection, () => [
    `connection "${connection.label}" ${connection.id}: ${connection.status}` + (connection.last_error ? ` (${connection.last_error})` : ''),
  ]);
}

/** `connection add/list/test/disable/enable`: the admin's way to manage warehouse connections (never over MCP). */
export function registerConnectionCommands(program: Command): void {
  const connection = program.command('connection').description('manage warehouse connections');
  registerAdd(connection);
  registerUpkeep(connection);
}

/** `connection add`: the owner (and workspace) by name, the URL from an option or standard input. */
function registerAdd(connection: Command): void {
  connection
    .command('add')
    .description('add a PostgreSQL warehouse connection (tests it and prints its id and status)')
    .requiredOption('--owner <handle>', 'handle of the user who owns it (needs the pro plan)')
    .option('--workspace <slug>', 'scope it to this workspace (the owner must be a member); personal otherwise')
    .requiredOption('--label <label>', 'name shown in messages')
    .option('--url <url>', 'postgres://user:password@host:port/database (stored encrypted)')
    .option('--url-stdin', 'read the URL from standard input, keeping the password out of shell history')
    .action(
      action(async (app, options) => {
        if ((options.url === undefined) === !options.urlStdin) throw invalid('give the connection URL with exactly one of --url <url> or --url-stdin');
        const url = options.urlStdin ? await readStdin(options.io) : String(options.url);
        const accounts = app.container.get<AccountStore>(AccountStore);
        const owner = await accounts.findUserByHandle(String(options.owner));
        if (!owner) throw new DomainError('not_found', `user "${options.owner}" not found`);
        let workspaceId: string | null = null;
        if (options.workspace !== undefined) {
          const workspace = await accounts.findWorkspaceBySlug(String(options.workspace));
          if (!workspace) throw new DomainError('not_found', `workspace "${options.workspace}" not found`);
          workspaceId = workspace.id;
        }
        const created = connectionJson(await app.container.get(ManageConnections).create({ ownerUserId: owner.id, workspaceId, label: options.label, url }));
        print(options, created, () => [
          `added connection "${created.label}" id ${created.id} status ${created.status}` + (created.last_error ? ` (${created.last_error})` : ''),
        ]);
      }),
    );
}

/** `connection list/test/disable/enable`. */
function registerUpkeep(connection: Command): void {
  connection
    .command('list')
    .description('list every warehouse connection (never their URLs)')
    .action(
      action(async (app, options) => {
        const all = (await app.container.get(ManageConnections).listAll()).map(connectionJson);
        print(options, all, () => table(all as unknown as Array<Record<string, unknown>>, ['id', 'label', 'status', 'scope', 'workspace_id', 'last_tested_at', 'last_error']));
      }, 'read'),
    );
  connection
    .command('test <id>')
    .description('test a connection (connect and SELECT 1); active on success, failing otherwise')
    .action(
      action(async (app, options, id: string) => {
        const tested = await app.container.get(ManageConnections).test(id);
        printStatus(options, tested);
        if (tested.status !== 'active') options.io.exitCode = 1;
      }),
    );
  connection
    .command('disable <id>')
    .description('take a connection out of use: its dashboards stop refreshing and tools refuse it until enabled')
    .action(
      action(async (app, options, id: string) => {
        const disabled = await app.container.get(ManageConnections).disable(id);
        printStatus(options, disabled);
      }),
    );
  connection
    .command('enable <id>')
    .description('put a disabled connection back: tests it at once (exit 1 unless active)')
    .action(
      action(async (app, options, id: string) => {
        const enabled = await app.container.get(ManageConnections).enable(id);
        printStatus(options, enabled);
        if (enabled.status !== 'active') options.io.exitCode = 1;
      }),
    );
}
