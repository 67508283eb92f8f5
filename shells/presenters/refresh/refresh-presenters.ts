import type { RefreshStatus, RefreshTriggered, ScheduleSet } from '../../../application/refresh/manage-refresh.js';
import type { RefreshRun } from '../../../application/ports/refresh-state-store.js';
import type { UrlSettings } from '../../../domain/urls.js';
import { dashboardUrl } from '../dashboards/dashboard-presenters.js';

/*
 * The refresh tools' wire shapes, made from ManageRefresh's records: snake_case keys, ISO times, the
 * dashboard's canonical URL from the target and slug. The key order is the wire format, so keep it.
 */

/** A run as get_refresh_status shows it. */
export const runJson = (run: RefreshRun | null) =>
  run && {
    started_at: run.startedAt.toISOString(),
    trigger: run.trigger,
    outcome: run.outcome,
    duration_ms: run.durationMs,
    rows: run.rows,
    error: run.error,
  };

/** get_refresh_status's wire shape. */
export const statusJson = (urls: UrlSettings, s: RefreshStatus) => ({
  slug: s.slug,
  url: dashboardUrl(urls, s.target, s.slug),
  refreshable: s.refreshable,
  connection: s.connection,
  schedule: s.schedule?.cron ?? null,
  timezone: s.schedule?.timezone ?? null,
  next_run_at: s.schedule?.nextRunAt?.toISOString() ?? null,
  last_run: runJson(s.lastRun),
  live_rendered_at: s.liveRenderedAt?.toISOString() ?? null,
  warnings: s.warnings,
});

/** set_refresh_schedule's wire shape (its outputSchema). */
export const scheduleJson = (urls: UrlSettings, s: ScheduleSet) => ({
  slug: s.slug,
  url: dashboardUrl(urls, s.target, s.slug),
  schedule: s.schedule?.cron ?? null,
  timezone: s.schedule?.timezone ?? null,
  next_runs: s.schedule?.nextRuns.map((d) => d.toISOString()) ?? [],
  warnings: s.warnings,
});

/** trigger_refresh's wire shape. */
export const triggeredJson = (urls: UrlSettings, t: RefreshTriggered) => ({
  slug: t.slug,
  url: dashboardUrl(urls, t.target, t.slug),
  queued: t.queued,
  already_queued: !t.queued,
});
