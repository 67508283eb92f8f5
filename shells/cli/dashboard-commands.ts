import type { Command } from 'commander';
import { AdminDashboards } from '../../application/dashboards/admin-dashboards.js';
import { registerArchiveCommands } from './archive-commands.js';
import { action } from './context.js';
import { print, table } from './output.js';

export function registerDashboardCommands(program: Command): void {
  const dashboard = program.command('dashboard').description('inspect, export and import dashboards');
  dashboard
    .command('list')
    .description('list dashboards of one owner, one workspace, or everyone')
    .option('--owner <handle>', 'a user\'s personal dashboards')
    .option('--workspace <slug>', 'a workspace\'s dashboards')
    .action(
      action(async (app, options) => {
        const rows = await app.container.get(AdminDashboards).list({ owner: options.owner as string | undefined, workspace: options.workspace as string | undefined });
        print(options, rows, () => table(rows as unknown as Array<Record<string, unknown>>, ['owner', 'slug', 'name', 'visibility', 'url']));
      }),
    );
  registerArchiveCommands(dashboard);
}
