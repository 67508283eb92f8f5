import type { DashboardRef } from '../../../../application/dashboard-lookup.js';
import type { RenameCommand } from '../../../../application/dashboards/rename-dashboard.js';
import type { MetadataInput } from '../../../../application/dashboards/update-dashboard.js';
import type { BodyRequest } from '../../../../application/dashboards/get-dashboard.js';
import type { VersionRef } from '../../../../application/dashboards/dashboard-versions.js';
import type { PublishCommand } from '../../../../application/dashboards/publish-dashboard.js';
import type { ListQuery } from '../../../../application/dashboards/list-dashboards.js';
import type { ScheduleCommand } from '../../../../application/refresh/manage-refresh.js';

/** A tool's arguments as `call` receives them. */
export type Args = Record<string, unknown>;

/*
 * Typed commands from tool arguments, built once at the tool edge. The registry has already checked every
 * declared argument against the tool's inputSchema (shells/koa/mcp/argument-validation.ts), so a builder
 * only gives the checked values their types. `workspace` and a tool's other `useCaseChecked` arguments stay
 * `unknown`: the grant-lock rules and the use case word those refusals themselves.
 */

export const dashboardRef = (args: Args): DashboardRef => ({ slug: args.slug as string, workspace: args.workspace });

export const bodyRequest = (args: Args): BodyRequest => ({
  include_body: args.include_body as boolean | null | undefined,
  filename: args.filename as string | null | undefined,
});

export const versionRef = (args: Args): VersionRef => ({ ...dashboardRef(args), version_id: args.version_id as string });

export const metadataInput = (args: Args): MetadataInput => ({
  name: args.name,
  tags: args.tags as string[] | null | undefined,
  chart: args.chart,
  visibility: args.visibility as string | null | undefined,
  connection: args.connection,
});

export const renameCommand = (args: Args): RenameCommand => ({ ...dashboardRef(args), new_slug: args.new_slug as string });

export const scheduleCommand = (args: Args): ScheduleCommand => ({
  ...dashboardRef(args),
  schedule: args.schedule as string | null,
  timezone: args.timezone as string | undefined,
});

export const listQuery = (args: Args): ListQuery => ({
  workspace: args.workspace,
  cursor: args.cursor as string | null | undefined,
  limit: args.limit as number | null | undefined,
  slug: args.slug as string | null | undefined,
  tag: args.tag as string | null | undefined,
});

/**
 * Moves `body` out of the arguments into the command: the arguments were parsed from this one request and
 * nothing reads them again, so once the use case has decoded the body (up to 5 MiB, as a string or as the bytes
 * the endpoint decoded it into, parse-message.ts) nothing holds it twice for the rest of the publish
 * (docs/decisions/0043-large-body-decoding.md).
 */
export function publishCommand(args: Args): PublishCommand {
  const command: PublishCommand = {
    ...metadataInput(args),
    workspace: args.workspace,
    path: args.path as string,
    body: args.body as PublishCommand['body'],
    encoding: args.encoding as PublishCommand['encoding'],
    spec: args.spec,
    dry_run: args.dry_run as boolean | null | undefined,
  };
  // Cleared, not deleted: `delete` turns the arguments into a dictionary-mode object, a cost on every publish.
  args.body = undefined;
  return command;
}
