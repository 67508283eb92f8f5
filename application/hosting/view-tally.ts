import { inject, injectable } from 'inversify';
import { Clock } from '../ports/clock.js';
import { ViewCounter, type DailyViews } from '../ports/view-counter.js';

/**
 * Counts dashboard views in memory and writes them in batches, so serving a page never waits on the
 * database. Only (dashboard, UTC day) → count is kept: no address, agent or user. The composition root
 * calls `flush` every few seconds and on shutdown; a failed write is kept and retried with the next.
 */
const DAY_MS = 24 * 60 * 60 * 1000;

@injectable()
export class ViewTally {
  private pending = new Map<string, DailyViews>();
  private flushing: Promise<void> | null = null;
  private day = '';
  private daySuffix = '';
  private dayStartsAt = 0;
  private dayEndsAt = 0;

  constructor(
    @inject(ViewCounter) private readonly counter: ViewCounter,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** Called on every page view, so it keeps the day's key prefix until the UTC day ends. */
  record(dashboardId: string): void {
    const now = this.clock.now().getTime();
    if (now >= this.dayEndsAt || now < this.dayStartsAt) this.startDay(now);
    const key = dashboardId + this.daySuffix;
    const entry = this.pending.get(key);
    if (entry) entry.views += 1;
    else this.pending.set(key, { dashboardId, day: this.day, views: 1 });
  }

  private startDay(nowMs: number): void {
    this.dayStartsAt = Math.floor(nowMs / DAY_MS) * DAY_MS;
    this.dayEndsAt = this.dayStartsAt + DAY_MS;
    this.day = new Date(this.dayStartsAt).toISOString().slice(0, 10);
    this.daySuffix = `|${this.day}`;
  }

  /** Writes everything counted so far; concurrent calls share one write. */
  async flush(): Promise<void> {
    while (this.flushing) await this.flushing;
    if (this.pending.size === 0) return;
    const batch = this.pending;
    this.pending = new Map();
    this.flushing = this.counter.add([...batch.values()]).catch((error: unknown) => {
      for (const [key, counted] of batch) {
        const later = this.pending.get(key);
        if (later) later.views += counted.views;
        else this.pending.set(key, counted);
      }
      throw error;
    });
    try {
      await this.flushing;
    } finally {
      this.flushing = null;
    }
  }

  /** Views counted but not yet written (for tests and shutdown logs). */
  get pendingViews(): number {
    let total = 0;
    for (const entry of this.pending.values()) total += entry.views;
    return total;
  }
}
