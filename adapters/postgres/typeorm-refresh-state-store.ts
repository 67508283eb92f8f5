import type { DataSource } from 'typeorm';
import type { Manifest } from '../../application/ports/dashboard-store.js';
import type { LiveRender, RefreshRun, RefreshSchedule, RefreshStateStore } from '../../application/ports/refresh-state-store.js';
import { RUN_COLUMNS, runFromRow, type RunRow } from './refresh-run-rows.js';

interface ScheduleRow {
  dashboard_id: string;
  cron: string;
  timezone: string;
  next_run_at: Date | null;
}
const schedule = (r: ScheduleRow): RefreshSchedule => ({ dashboardId: r.dashboard_id, cron: r.cron, timezone: r.timezone, nextRunAt: r.next_run_at });

export class TypeormRefreshStateStore implements RefreshStateStore {
  constructor(private readonly dataSource: DataSource) {}

  async setSchedule(s: RefreshSchedule): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO refresh_schedules (dashboard_id, cron, timezone, next_run_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (dashboard_id) DO UPDATE SET cron = EXCLUDED.cron, timezone = EXCLUDED.timezone, next_run_at = EXCLUDED.next_run_at`,
      [s.dashboardId, s.cron, s.timezone, s.nextRunAt],
    );
  }

  async clearSchedule(dashboardId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM refresh_schedules WHERE dashboard_id = $1`, [dashboardId]);
  }

  async getSchedule(dashboardId: string): Promise<RefreshSchedule | null> {
    const rows: ScheduleRow[] = await this.dataSource.query(`SELECT * FROM refresh_schedules WHERE dashboard_id = $1`, [dashboardId]);
    return rows[0] ? schedule(rows[0]) : null;
  }

  async dueSchedules(now: Date, limit: number): Promise<RefreshSchedule[]> {
    const rows: ScheduleRow[] = await this.dataSource.query(
      `SELECT * FROM refresh_schedules WHERE next_run_at <= $1 ORDER BY next_run_at, dashboard_id LIMIT $2`,
      [now, limit],
    );
    return rows.map(schedule);
  }

  async claimSchedule(dashboardId: string, expected: Date, next: Date | null): Promise<boolean> {
    const [, count] = (await this.dataSource.query(
      `UPDATE refresh_schedules SET next_run_at = $3 WHERE dashboard_id = $1 AND next_run_at = $2`,
      [dashboardId, expected, next],
    )) as [unknown, number];
    return count === 1;
  }

  async recordRun(r: RefreshRun): Promise<void> {
    await this.dataSource.query(`INSERT INTO refresh_runs (${RUN_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`, [
      r.id,
      r.dashboardId,
      r.trigger,
      r.startedAt,
      Math.round(r.durationMs),
      r.outcome,
      r.rows,
      r.error,
    ]);
  }

  async lastRun(dashboardId: string): Promise<RefreshRun | null> {
    const rows: RunRow[] = await this.dataSource.query(
      `SELECT ${RUN_COLUMNS} FROM refresh_runs WHERE dashboard_id = $1 ORDER BY started_at DESC, id DESC LIMIT 1`,
      [dashboardId],
    );
    return rows[0] ? runFromRow(rows[0]) : null;
  }

  async runsOf(dashboardIds: string[]): Promise<RefreshRun[]> {
    if (dashboardIds.length === 0) return [];
    const rows: RunRow[] = await this.dataSource.query(
      `SELECT ${RUN_COLUMNS} FROM refresh_runs WHERE dashboard_id = ANY($1::uuid[]) ORDER BY started_at, id`,
      [dashboardIds],
    );
    return rows.map(runFromRow);
  }

  async setLiveRender(render: LiveRender): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO dashboard_live_renders (dashboard_id, version_id, files, rendered_at) VALUES ($1, $2, $3::jsonb, $4)
       ON CONFLICT (dashboard_id) DO UPDATE SET version_id = EXCLUDED.version_id, files = EXCLUDED.files, rendered_at = EXCLUDED.rendered_at`,
      [render.dashboardId, render.versionId, JSON.stringify(render.files), render.renderedAt],
    );
  }

  async liveRender(dashboardId: string): Promise<LiveRender | null> {
    const rows: Array<{ dashboard_id: string; version_id: string; files: Manifest; rendered_at: Date }> = await this.dataSource.query(
      `SELECT dashboard_id, version_id, files, rendered_at FROM dashboard_live_renders WHERE dashboard_id = $1`,
      [dashboardId],
    );
    const r = rows[0];
    return r ? { dashboardId: r.dashboard_id, versionId: r.version_id, files: r.files, renderedAt: r.rendered_at } : null;
  }
}
