import type { DataSource } from 'typeorm';
import type { AlertState, AlertStatus } from '../../domain/alerts.js';
import type { Cell } from '../../domain/dashboard-spec.js';
import type { AlertStateStore, FailureStreak } from '../../application/ports/alert-state-store.js';

interface StateRow {
  alert_id: string;
  status: string;
  value: Cell;
  changed_at: Date;
  checked_at: Date;
}

/** Alert states and refresh failure streaks in PostgreSQL (migration 1700000017000). */
export class PostgresAlertStateStore implements AlertStateStore {
  constructor(private readonly dataSource: DataSource) {}

  async states(dashboardId: string): Promise<AlertState[]> {
    const rows: StateRow[] = await this.dataSource.query(
      `SELECT alert_id, status, value, changed_at, checked_at FROM dashboard_alert_states WHERE dashboard_id = $1 ORDER BY alert_id COLLATE "C"`,
      [dashboardId],
    );
    return rows.map((r) => ({ alertId: r.alert_id, status: r.status as AlertStatus, value: r.value ?? null, changedAt: r.changed_at, checkedAt: r.checked_at }));
  }

  async replaceStates(dashboardId: string, states: AlertState[]): Promise<void> {
    await this.dataSource.transaction(async (tx) => {
      await tx.query(`DELETE FROM dashboard_alert_states WHERE dashboard_id = $1`, [dashboardId]);
      if (states.length === 0) return;
      // One statement for all of them: the values travel as one JSON array.
      await tx.query(
        `INSERT INTO dashboard_alert_states (dashboard_id, alert_id, status, value, changed_at, checked_at)
         SELECT $1, s.alert_id, s.status, s.value, s.changed_at, s.checked_at
           FROM jsonb_to_recordset($2::jsonb) AS s (alert_id text, status text, value jsonb, changed_at timestamptz, checked_at timestamptz)`,
        [dashboardId, JSON.stringify(states.map((s) => ({ alert_id: s.alertId, status: s.status, value: s.value, changed_at: s.changedAt, checked_at: s.checkedAt })))],
      );
    });
  }

  async failureStreak(dashboardId: string): Promise<FailureStreak | null> {
    const rows: Array<{ since: Date; failures: number; last_error: string }> = await this.dataSource.query(
      `SELECT since, failures, last_error FROM refresh_failure_streaks WHERE dashboard_id = $1`,
      [dashboardId],
    );
    const row = rows[0];
    return row ? { since: row.since, failures: row.failures, lastError: row.last_error } : null;
  }

  async setFailureStreak(dashboardId: string, streak: FailureStreak | null): Promise<void> {
    if (streak === null) {
      await this.dataSource.query(`DELETE FROM refresh_failure_streaks WHERE dashboard_id = $1`, [dashboardId]);
      return;
    }
    await this.dataSource.query(
      `INSERT INTO refresh_failure_streaks (dashboard_id, since, failures, last_error) VALUES ($1, $2, $3, $4)
       ON CONFLICT (dashboard_id) DO UPDATE SET since = EXCLUDED.since, failures = EXCLUDED.failures, last_error = EXCLUDED.last_error`,
      [dashboardId, streak.since, streak.failures, streak.lastError],
    );
  }
}
