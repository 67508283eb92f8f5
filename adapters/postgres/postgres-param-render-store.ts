import type { DataSource } from 'typeorm';
import type { ParamRender, ParamRenderStore } from '../../application/ports/param-render-store.js';

/** Parameter renders and their budget in PostgreSQL, so every instance serves and counts the same ones. */
export class PostgresParamRenderStore implements ParamRenderStore {
  constructor(private readonly dataSource: DataSource) {}

  async find(dashboardId: string, versionId: string, valuesKey: string): Promise<ParamRender | null> {
    const rows: Array<{ html: string; sha256: string }> = await this.dataSource.query(
      'SELECT html, sha256 FROM param_renders WHERE dashboard_id = $1 AND version_id = $2 AND values_key = $3',
      [dashboardId, versionId, valuesKey],
    );
    return rows[0] ?? null;
  }

  async put(dashboardId: string, versionId: string, valuesKey: string, render: ParamRender, at: Date, keep: number): Promise<void> {
    await this.dataSource.query(
      `WITH stored AS (
         INSERT INTO param_renders (dashboard_id, version_id, values_key, html, sha256, created_at) VALUES ($1, $2, $3, $4, $5, $6)
         ON CONFLICT (dashboard_id, version_id, values_key) DO UPDATE SET html = EXCLUDED.html, sha256 = EXCLUDED.sha256, created_at = EXCLUDED.created_at
       )
       DELETE FROM param_renders WHERE dashboard_id = $1 AND (version_id <> $2 OR values_key IN (
         SELECT values_key FROM param_renders WHERE dashboard_id = $1 AND version_id = $2 AND values_key <> $3
          ORDER BY created_at DESC OFFSET $7))`,
      [dashboardId, versionId, valuesKey, render.html, render.sha256, at, Math.max(0, keep - 1)],
    );
  }

  async takeBudget(dashboardId: string, windowStart: Date, limit: number): Promise<boolean> {
    if (limit <= 0) return false;
    const rows: Array<{ used: number }> = await this.dataSource.query(
      `INSERT INTO param_render_budgets AS b (dashboard_id, window_start, used) VALUES ($1, $2, 1)
       ON CONFLICT (dashboard_id) DO UPDATE
         SET window_start = EXCLUDED.window_start,
             used = CASE WHEN b.window_start = EXCLUDED.window_start THEN b.used + 1 ELSE 1 END
       WHERE b.window_start <> EXCLUDED.window_start OR b.used < $3
       RETURNING used`,
      [dashboardId, windowStart, limit],
    );
    return rows.length > 0;
  }
}
