/** One dashboard's views on one UTC day. No viewer data is ever recorded: only the count. */
export interface DailyViews {
  dashboardId: string;
  /** `YYYY-MM-DD`, UTC. */
  day: string;
  views: number;
}

export const ViewCounter = Symbol.for('ViewCounter');
/**
 * Storage of daily view counts. Writes arrive in batches (application/hosting/view-tally.ts accumulates
 * them in memory), so `add` is an upsert that adds to any existing count.
 */
export interface ViewCounter {
  add(counts: DailyViews[]): Promise<void>;
  /** Totals per dashboard and day, oldest day first; `fromDay` (inclusive) narrows the range. */
  daily(dashboardIds: string[], fromDay?: string): Promise<DailyViews[]>;
}
