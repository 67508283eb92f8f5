import { inject, injectable } from 'inversify';
import { Clock } from '../../application/ports/clock.js';
import type { RateLimiter } from '../../application/ports/rate-limiter.js';

interface Window {
  count: number;
  endsAt: number;
}

/** Sweep at most this often, so a burst of distinct keys costs one pass instead of one per call. */
const SWEEP_INTERVAL_MS = 10_000;

/**
 * In-process fixed windows for a single instance (the default without REDIS_URL). A window starts at a
 * key's first hit and lasts `windowSeconds`; `points` is its ceiling and each call consumes one.
 * Ended windows are evicted lazily, so memory stays proportional to the keys active in the last window.
 */
@injectable()
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, Window>();
  private nextSweepAt = 0;

  constructor(@inject(Clock) private readonly clock: Clock) {}

  async consume(bucket: string, key: string, points: number, windowSeconds: number): Promise<boolean> {
    const now = this.clock.now().getTime();
    this.sweep(now);
    const id = `${bucket}\u0000${key}`;
    let window = this.windows.get(id);
    if (!window || window.endsAt <= now) {
      window = { count: 0, endsAt: now + windowSeconds * 1000 };
      this.windows.set(id, window);
    }
    window.count += 1;
    return window.count <= points;
  }

  /** Windows currently held; exposed for tests of the eviction. */
  size(): number {
    return this.windows.size;
  }

  private sweep(now: number): void {
    if (now < this.nextSweepAt) return;
    this.nextSweepAt = now + SWEEP_INTERVAL_MS;
    for (const [id, window] of this.windows) if (window.endsAt <= now) this.windows.delete(id);
  }
}
