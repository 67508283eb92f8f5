import { Redis } from 'ioredis';
import type { RateLimiter } from '../../application/ports/rate-limiter.js';

/** pino's calling convention; `info` is optional so a bare `{ warn }` will do. */
export interface LimiterLogger {
  warn(data: object, message: string): void;
  info?(data: object, message: string): void;
}

export interface RedisRateLimiterOptions {
  url: string;
  /** Longest a consume waits on Redis before failing open. */
  timeoutMs?: number;
  keyPrefix?: string;
  logger?: LimiterLogger;
  /** At most one "Redis unavailable" warning per this interval. */
  warnIntervalMs?: number;
}

/**
 * One fixed window per key, started by its first hit: the count and the expiry are set atomically, and the
 * window lives on Redis' clock, so every instance sharing the Redis shares one budget whatever its own clock.
 */
const FIXED_WINDOW = `
local count = redis.call('INCR', KEYS[1])
if count == 1 or redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return count
`;

type ScriptedRedis = Redis & { dashpubFixedWindow(key: string, windowMs: number): Promise<number> };

const consoleLogger: LimiterLogger = { warn: (data, message) => console.warn(message, data) };

/**
 * Shared fixed-window counters in Redis. Fail open (spec): while Redis is unreachable or slow, `consume`
 * answers true within `timeoutMs`, warns at most once per interval, and uses Redis again as soon as the
 * client has reconnected. Nothing queues while Redis is away, so no burst of stale commands follows.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly client: ScriptedRedis;
  private readonly timeoutMs: number;
  private readonly keyPrefix: string;
  private readonly logger: LimiterLogger;
  private readonly warnIntervalMs: number;
  private lastWarnAt = -Infinity;
  private failing = false;
  /** True until the first connection attempt succeeds or fails. */
  private connecting = true;
  private readonly firstAttempt: Promise<void>;

  constructor(options: RedisRateLimiterOptions) {
    this.timeoutMs = options.timeoutMs ?? 200;
    this.keyPrefix = options.keyPrefix ?? 'dashpub:rl:';
    this.logger = options.logger ?? consoleLogger;
    this.warnIntervalMs = options.warnIntervalMs ?? 60_000;
    this.client = new Redis(options.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 1000,
      commandTimeout: this.timeoutMs,
      // Keep reconnecting forever, at most a second apart, so the limiter comes back on its own.
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    }) as ScriptedRedis;
    this.client.defineCommand('dashpubFixedWindow', { numberOfKeys: 1, lua: FIXED_WINDOW });
    this.firstAttempt = new Promise((resolve) => {
      const settle = () => {
        this.connecting = false;
        resolve();
      };
      this.client.once('ready', settle);
      this.client.once('error', settle);
      this.client.once('close', settle);
    });
    this.client.on('error', (err: Error) => this.degraded(err));
  }

  async consume(bucket: string, key: string, points: number, windowSeconds: number): Promise<boolean> {
    const started = Date.now();
    try {
      // Only the first connection attempt is worth waiting for; after that a missing Redis fails open at once.
      if (this.connecting) await this.within(this.firstAttempt, this.timeoutMs);
      const remaining = Math.max(1, this.timeoutMs - (Date.now() - started));
      const count = await this.within(this.client.dashpubFixedWindow(`${this.keyPrefix}${bucket}:${key}`, windowSeconds * 1000), remaining);
      this.recovered();
      return Number(count) <= points;
    } catch (err) {
      this.degraded(err);
      return true;
    }
  }

  /** Whether Redis is connected, waiting up to `timeoutMs` for it; for start-up logs and tests. */
  async ready(timeoutMs = 2000): Promise<boolean> {
    if (this.client.status === 'ready') return true;
    let onReady: () => void = () => undefined;
    const connected = new Promise<void>((resolve) => {
      onReady = () => resolve();
      this.client.once('ready', onReady);
    });
    return this.within(connected, timeoutMs).then(
      () => true,
      () => {
        this.client.off('ready', onReady);
        return false;
      },
    );
  }

  async close(): Promise<void> {
    if (this.client.status === 'ready') {
      await this.within(this.client.quit(), 1000).catch(() => undefined); // shutting down: disconnect() below ends it anyway
    }
    this.client.disconnect();
  }

  private within<T>(work: Promise<T>, ms: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
    });
    work.catch(() => undefined); // a late rejection after the timeout won is expected, not unhandled
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }

  private degraded(err: unknown): void {
    this.failing = true;
    const now = Date.now();
    if (now - this.lastWarnAt < this.warnIntervalMs) return;
    this.lastWarnAt = now;
    const reason = err instanceof Error ? err.message : String(err);
    this.logger.warn({ reason }, 'rate limiter: Redis unavailable, allowing requests (fail open)');
  }

  private recovered(): void {
    if (!this.failing) return;
    this.failing = false;
    this.logger.info?.({}, 'rate limiter: Redis reachable again, limits enforced');
  }
}
