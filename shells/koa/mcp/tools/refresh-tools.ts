import { ManageRefresh } from '../../../../application/refresh/manage-refresh.js';
import { Settings } from '../../../../application/ports/settings.js';
import { scheduleJson, statusJson, triggeredJson } from '../../../presenters/refresh/refresh-presenters.js';
import { answer, warningLines } from './presenters.js';
import { object, SLUG, WORKSPACE } from './schemas.js';
import { Text, Unlisted, Workspace } from './arguments.js';
import { defineTool } from './definition.js';
import { DashboardInput } from './dashboard-inputs.js';

export class ScheduleInput {
  @Text(SLUG)
  slug!: string;

  @Text({ nullable: true, description: '5-field cron, e.g. "0 6 * * *" (daily 06:00), or null to clear.' })
  schedule!: string | null;

  @Text({ optional: true, description: 'IANA time zone, e.g. "Europe/Paris". Default UTC.' })
  timezone?: string | null;

  @Workspace(WORKSPACE)
  workspace?: unknown;
}

export class TriggerInput {
  @Text(SLUG)
  slug!: string;

  /** Not offered (the one tool without a workspace target), but refused with the spec's text when sent. */
  @Unlisted()
  workspace?: unknown;
}

/** set_refresh_schedule, trigger_refresh (no `workspace`: personal dashboards only) and get_refresh_status. */
export const REFRESH_TOOLS = [
  defineTool({
    name: 'set_refresh_schedule',
    title: 'Schedule a dashboard refresh',
    description:
      'Set when a refreshable dashboard (a spec with queries) re-runs its SQL and re-renders: a 5-field cron expression ' +
      '(minute hour day-of-month month day-of-week) read in an IANA time zone (default UTC), or null to clear the schedule. ' +
      'Returns the next 3 run times.',
    input: ScheduleInput,
    outputSchema: object(
      {
        slug: { type: 'string' },
        url: { type: 'string' },
        schedule: { type: ['string', 'null'] },
        timezone: { type: ['string', 'null'] },
        next_runs: { type: 'array', items: { type: 'string' } },
        warnings: { type: 'array', items: { type: 'string' } },
      },
      ['slug', 'url', 'schedule', 'timezone', 'next_runs', 'warnings'],
    ),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    guide: { group: 'Data and refresh', when: 'to refresh a dashboard on a 5-field cron schedule, or to clear the schedule' },
    bind(container) {
      const refresh = container.get(ManageRefresh);
      const urls = container.get<Settings>(Settings);
      return {
        async call(principal, input) {
          const command = { slug: input.slug, workspace: input.workspace, schedule: input.schedule, timezone: input.timezone ?? undefined };
          const r = scheduleJson(urls, await refresh.setSchedule(principal, command));
          const lines =
            r.schedule === null
              ? [`Cleared the refresh schedule of ${r.url}.`]
              : [`${r.url} refreshes on "${r.schedule}" (${r.timezone}); next runs: ${r.next_runs.join(', ')}.`, ...warningLines(r.warnings)];
          return answer(lines, r, true);
        },
      };
    },
  }),
  defineTool({
    name: 'trigger_refresh',
    title: 'Refresh a dashboard now',
    description:
      'Queue an immediate refresh of one of your personal refreshable dashboards (not available for workspace dashboards). ' +
      'Check the outcome with get_refresh_status.',
    input: TriggerInput,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
    guide: { group: 'Data and refresh', when: 'to refresh a personal dashboard now' },
    bind(container) {
      const refresh = container.get(ManageRefresh);
      const urls = container.get<Settings>(Settings);
      return {
        async call(principal, input) {
          const r = triggeredJson(urls, await refresh.trigger(principal, { slug: input.slug, workspace: input.workspace }));
          const line = r.queued
            ? `Queued a refresh of ${r.url}. Check get_refresh_status for the outcome.`
            : `A refresh of ${r.url} is already waiting to run; no second one was queued.`;
          return answer([line], r);
        },
      };
    },
  }),
  defineTool({
    name: 'get_refresh_status',
    title: 'Refresh status of a dashboard',
    description: 'Show a dashboard\'s refresh schedule, its next run, and its last run (time, outcome, duration, rows, error).',
    input: DashboardInput,
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    guide: { group: 'Data and refresh', when: 'to see the schedule, the next run and how the last run went' },
    bind(container) {
      const refresh = container.get(ManageRefresh);
      const urls = container.get<Settings>(Settings);
      return {
        async call(principal, input) {
          const r = statusJson(urls, await refresh.status(principal, { slug: input.slug, workspace: input.workspace }));
          const schedule = r.schedule ? `scheduled "${r.schedule}" (${r.timezone}), next run ${r.next_run_at ?? 'none'}` : 'no schedule';
          const last = r.last_run
            ? `last run ${r.last_run.started_at}: ${r.last_run.outcome} in ${r.last_run.duration_ms} ms, ${r.last_run.rows} row(s)` +
              (r.last_run.error ? `; error: ${r.last_run.error}` : '')
            : 'never run';
          const kind = r.refreshable ? 'refreshable' : 'static (nothing to refresh)';
          return answer([`${r.url} is ${kind}: ${schedule}; ${last}.`, ...warningLines(r.warnings)], r);
        },
      };
    },
  }),
];
