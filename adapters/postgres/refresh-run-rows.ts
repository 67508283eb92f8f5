import type { RefreshOutcome, RefreshRun, RefreshTrigger } from '../../application/ports/refresh-state-store.js';

/** A `refresh_runs` row as PostgreSQL returns it: read by the refresh state store and by the catalog's run history. */
export interface RunRow {
  id: string;
  dashboard_id: string;
  trigger: string;
  started_at: Date;
  duration_ms: number;
  outcome: string;
  rows: number;
  error: string | null;
}

export const RUN_COLUMNS = 'id, dashboard_id, trigger, started_at, duration_ms, outcome, rows, error';

export const runFromRow = (r: RunRow): RefreshRun => ({
  id: r.id,
  dashboardId: r.dashboard_id,
  trigger: r.trigger as RefreshTrigger,
  startedAt: r.started_at,
  durationMs: r.duration_ms,
  outcome: r.outcome as RefreshOutcome,
  rows: r.rows,
  error: r.error,
});
