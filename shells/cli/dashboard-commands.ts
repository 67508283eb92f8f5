import type { Command } from 'commander';
import { AdminDashboards, type AdminDashboardRow } from '../../application/dashboards/admin-dashboards.js';
import { Settings } from '../../application/ports/settings.js';
import { subdomainOf } from '../../domain/scope.js';
import type { UrlSettings } from '../../domain/urls.js';
import { dashboardUrl } from '../presenters/dashboards/dashboard-presenters.js';
import { registerArchiveCommands } from './archive-commands.js';
import { action } from './context.js';
import { print, table } from './output.js';

/** `dashboard list`'s row, as --json prints it and the table shows it. */
export const dashboardRowJson = (urls: UrlSettings, { target, dashboard }: AdminDashboardRow) => ({
  owner: subdomainOf(target),
  kind: target.kind,
  slug: dashboard.slug,
  name: dashboard.name,
  visibility: dashboard.visibility,
  url: dashboardUrl(urls, target, dashboard.slug),
  updated_at: dashboard.updatedAt.toISOString(),
});

export function registerDashboardCommands(program: Command): void {
  const dashboard = program.command('dashboard').description('inspect, export and import dashboards');
  dashboard
    .command('list')
    .description('list dashboards of one owner, one workspace, or everyone')
    .option('--owner <handle>', 'a user\'s personal dashboards')
    .option('--workspace <slug>', 'a workspace\'s dashboards')
    .action(
      action(async (app, options) => {
        const listed = await app.container.get(AdminDashboards).list({ owner: options.owner as string | undefined, workspace: options.workspace as string | undefined });
        const urls = app.container.get<Settings>(Settings);
        const rows = listed.map((row) => dashboardRowJson(urls, row));
        print(options, rows, () => table(rows as unknown as Array<Record<string, unknown>>, ['owner', 'slug', 'name', 'visibility', 'url']));
      }, 'read'),
    );
  registerArchiveCommands(dashboard);
}
