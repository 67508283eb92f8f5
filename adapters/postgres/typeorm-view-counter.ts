import type { DataSource } from 'typeorm';
import type { DailyViews, ViewCounter } from '../../application/ports/view-counter.js';
import { isUuid } from '../../domain/ids.js';

/** dashboard_views_daily with one upsert per batch. */
export class TypeormViewCounter implements ViewCounter {
  constructor(private readonly dataSource: DataSource) {}

  async add(counts: DailyViews[]): Promise<void> {
    // One row per key (ON CONFLICT cannot touch a row twice in one statement), in key order so
    // concurrent batches from several instances lock rows in the same order.
    const merged = new Map<string, DailyViews>();
    for (const c of counts) {
      if (!isUuid(c.dashboardId) || c.views <= 0) continue;
      const key = `${c.dashboardId.toLowerCase()}|${c.day}`;
      const entry = merged.get(key);
      if (entry) entry.views += c.views;
      else merged.set(key, { dashboardId: c.dashboardId.toLowerCase(), day: c.day, views: c.views });
    }
    if (merged.size === 0) return;
    const rows = [...merged.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, r]) => r);
    await this.dataSource.query(
      `INSERT INTO dashboard_views_daily (dashboard_id, day, views)
       SELECT * FROM unnest($1::uuid[], $2::date[], $3::bigint[])
       ON CONFLICT (dashboard_id, day) DO UPDATE SET views = dashboard_views_daily.views + EXCLUDED.views`,
      [rows.map((r) => r.dashboardId), rows.map((r) => r.day), rows.map((r) => r.views)],
    );
  }

  async daily(dashboardIds: string[], fromDay?: string): Promise<DailyViews[]> {
    const ids = dashboardIds.filter(isUuid);
    if (ids.length === 0) return [];
    const rows: Array<{ dashboard_id: string; day: string; views: string }> = await this.dataSource.query(
      `SELECT dashboard_id, to_char(day, 'YYYY-MM-DD') AS day, views
         FROM dashboard_views_daily
        WHERE dashboard_id = ANY($1::uuid[]) AND ($2::date IS NULL OR day >= $2::date)
        ORDER BY day, dashboard_id`,
      [ids, fromDay ?? null],
    );
    return rows.map((r) => ({ dashboardId: r.dashboard_id, day: r.day, views: Number(r.views) }));
  }
}
