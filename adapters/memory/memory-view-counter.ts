import { injectable } from 'inversify';
import type { DailyViews, ViewCounter } from '../../application/ports/view-counter.js';

/** Daily view counts in a Map; the embedded-free test double of dashboard_views_daily. */
@injectable()
export class MemoryViewCounter implements ViewCounter {
  private readonly counts = new Map<string, DailyViews>();

  async add(counts: DailyViews[]): Promise<void> {
    for (const { dashboardId, day, views } of counts) {
      const key = `${dashboardId}|${day}`;
      const entry = this.counts.get(key);
      if (entry) entry.views += views;
      else this.counts.set(key, { dashboardId, day, views });
    }
  }

  async daily(dashboardIds: string[], fromDay?: string): Promise<DailyViews[]> {
    const wanted = new Set(dashboardIds);
    return [...this.counts.values()]
      .filter((c) => wanted.has(c.dashboardId) && (fromDay === undefined || c.day >= fromDay))
      .map((c) => ({ ...c }))
      .sort((a, b) => (a.day === b.day ? a.dashboardId.localeCompare(b.dashboardId) : a.day < b.day ? -1 : 1));
  }
}
