import type { Container } from 'inversify';
import type { ToolDefinition } from '../tool-registry.js';
import { ManageRefresh } from '../../../../application/refresh/manage-refresh.js';
import { Settings } from '../../../../application/ports/settings.js';
import { scheduleJson, statusJson, triggeredJson } from '../../../presenters/refresh/refresh-presenters.js';
import { answer, warningLines } from './presenters.js';
import { object, slugArg, workspaceArg } from './schemas.js';
import { dashboardRef, scheduleCommand } from './commands.js';

/** set_refresh_schedule, trigger_refresh (no `workspace`: personal dashboards only) and get_refresh_status. */
export function refreshTools(container: Container): ToolDefinition[] {
  const refresh = container.get(ManageRefresh);
  const urls = container.get<Settings>(Settings);
  return [
    {
      name: 'set_refresh_schedule',
      title: 'Schedule a dashboard refresh',
      description:
        'Set when a refreshable dashboard (a spec with queries) re-runs its SQL and re-renders: a 5-field cron expression ' +
        '(minute hour day-of-month month day-of-week) read in an IANA time zone (default UTC), or null to clear the schedule. ' +
        'Returns the next 3 run times.',
      inputSchema: object(
        {
          slug: slugArg,
          schedule: { type: ['string', 'null'], description: '5-field cron, e.g. "0 6 * * *" (daily 06:00), or null to clear.' },
          timezone: { type: 'string', description: 'IANA time zone, e.g. "Europe/Paris". Default UTC.' },
          workspace: workspaceArg,
        },
        ['slug', 'schedule'],
      ),
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
      async call(principal, args) {
        const r = scheduleJson(urls, await refresh.setSchedule(principal, scheduleCommand(args)));
        const lines =
          r.schedule === null
            ? [`Cleared the refresh schedule of ${r.url}.`]
            : [`${r.url} refreshes on "${r.schedule}" (${r.timezone}); next runs: ${r.next_runs.join(', ')}.`, ...warningLines(r.warnings)];
        return answer(lines, r, true);
      },
    },
    {
      name: 'trigger_refresh',
      title: 'Refresh a dashboard now',
      description:
        'Queue an immediate refresh of one of your personal refreshable dashboards (not available for workspace dashboards). ' +
        'Check the outcome with get_refresh_status.',
      inputSchema: object({ slug: slugArg }, ['slug']),
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
      // Not offered (the one tool without a workspace target), but refused with the spec's text when sent.
      useCaseChecked: ['workspace'],
      async call(principal, args) {
        const r = triggeredJson(urls, await refresh.trigger(principal, dashboardRef(args)));
        const line = r.queued
          ? `Queued a refresh of ${r.url}. Check get_refresh_status for the outcome.`
          : `A refresh of ${r.url} is already waiting to run; no second one was queued.`;
        return answer([line], r);
      },
    },
    {
      name: 'get_refresh_status',
      title: 'Refresh status of a dashboard',
      description: 'Show a dashboard\'s refresh schedule, its next run, and its last run (time, outcome, duration, rows, error).',
      inputSchema: object({ slug: slugArg, workspace: workspaceArg }, ['slug']),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      async call(principal, args) {
        const r = statusJson(urls, await refresh.status(principal, dashboardRef(args)));
        const schedule = r.schedule ? `scheduled "${r.schedule}" (${r.timezone}), next run ${r.next_run_at ?? 'none'}` : 'no schedule';
        const last = r.last_run
          ? `last run ${r.last_run.started_at}: ${r.last_run.outcome} in ${r.last_run.duration_ms} ms, ${r.last_run.rows} row(s)` +
            (r.last_run.error ? `; error: ${r.last_run.error}` : '')
          : 'never run';
        const kind = r.refreshable ? 'refreshable' : 'static (nothing to refresh)';
        return answer([`${r.url} is ${kind}: ${schedule}; ${last}.`, ...warningLines(r.warnings)], r);
      },
    },
  ];
}
