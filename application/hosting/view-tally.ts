import { inject, injectable } from 'inversify';
import { Clock } from '../ports/clock.js';
import { ShareLinkStore, type LinkViews } from '../ports/share-link-store.js';
import { ViewCounter, type DailyViews } from '../ports/view-counter.js';

/**
 * Counts dashboard views in memory and writes them in batches, so serving a page never waits on the
 * database. Only (dashboard, UTC day) → count is kept, and for a view through a share link the link's
 * count and last use: no address, agent or user. The composition root
 * calls `flush` every few seconds and on shutdown; a failed write is kept and retried with the next.
 */
const DAY_MS = 24 * 60 * 60 * 1000;

@injectable()
export class ViewTally {
  private pending = new Map<string, DailyViews>();
  /** Per link: views and the last one's time (ms; a Date is made only when written). */
  private pendingLinks = new Map<string, { views: number; lastMs: number }>();
  private flushing: Promise<void> | null = null;
  private day = '';
  private daySuffix = '';
  private dayStartsAt = 0;
  private dayEndsAt = 0;

  constructor(
    @inject(ViewCounter) private readonly counter: ViewCounter,
    @inject(Clock) private readonly clock: Clock,
    @inject(ShareLinkStore) private readonly shareLinks: ShareLinkStore,
  ) {}

  /** Called on every page view, so it keeps the day's key prefix until the UTC day ends. */
  record(dashboardId: string, shareLinkId?: string): void {
    const now = this.clock.now().getTime();
    if (shareLinkId !== undefined) this.recordLink(shareLinkId, now);
    if (now >= this.dayEndsAt || now < this.dayStartsAt) this.startDay(now);
    const key = dashboardId + this.daySuffix;
    const entry = this.pending.get(key);
    if (entry) entry.views += 1;
    else this.pending.set(key, { dashboardId, day: this.day, views: 1 });
  }

  private recordLink(linkId: string, nowMs: number): void {
    const entry = this.pendingLinks.get(linkId);
    if (entry) {
      entry.views += 1;
      entry.lastMs = nowMs;
    } else this.pendingLinks.set(linkId, { views: 1, lastMs: nowMs });
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
    if (this.pending.size === 0 && this.pendingLinks.size === 0) return;
    const batch = this.pending;
    const links = this.pendingLinks;
    this.pending = new Map();
    this.pendingLinks = new Map();
    this.flushing = this.write(batch, links);
    try {
      await this.flushing;
    } finally {
      this.flushing = null;
    }
  }

  /** Each batch is written once; what a failed write held goes back to be retried with the next. */
  private async write(batch: Map<string, DailyViews>, links: Map<string, { views: number; lastMs: number }>): Promise<void> {
    const linkViews: LinkViews[] = [...links].map(([linkId, c]) => ({ linkId, views: c.views, lastUsedAt: new Date(c.lastMs) }));
    const [days, perLink] = await Promise.allSettled([
      batch.size > 0 ? this.counter.add([...batch.values()]) : Promise.resolve(),
      links.size > 0 ? this.shareLinks.addViews(linkViews) : Promise.resolve(),
    ]);
    if (days.status === 'rejected') {
      for (const [key, counted] of batch) {
        const later = this.pending.get(key);
        if (later) later.views += counted.views;
        else this.pending.set(key, counted);
      }
    }
    if (perLink.status === 'rejected') {
      for (const [id, counted] of links) {
        const later = this.pendingLinks.get(id);
        if (later) later.views += counted.views;
        else this.pendingLinks.set(id, counted);
      }
    }
    if (days.status === 'rejected') throw days.reason;
    if (perLink.status === 'rejected') throw perLink.reason;
  }

  /** Views counted but not yet written (for tests and shutdown logs). */
  get pendingViews(): number {
    let total = 0;
    for (const entry of this.pending.values()) total += entry.views;
    return total;
  }
}
