import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
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

const consoleLogger: LimiterLogger = { warn: (data, message) => console.warn(message, data) };

/**
 * The insurance limiter rate-limiter-flexible falls back to when Redis errs. It admits everything, because
 * counting per process while Redis is away would hand each instance its own budget; it only records that it
 * answered, so the adapter can tell a Redis answer from a fail-open one.
 */
class FailOpenInsurance extends RateLimiterMemory {
  readonly answered = new WeakSet<RateLimiterRes>();

  constructor(private readonly onUse: () => void) {
    super({ points: Number.MAX_SAFE_INTEGER, duration: 1 });
  }

  override async consume(key: string | number, points?: number, options?: { [key: string]: unknown }): Promise<RateLimiterRes> {
    this.onUse();
    const res = await super.consume(key, points, options);
    this.answered.add(res);
    return res;
  }
}

/**
 * Shared fixed-window counters in Redis (rate-limiter-flexible's `RateLimiterRedis`: one window per key,
 * started by its first hit, count and expiry set atomically on Redis' clock, so every instance sharing the
 * Redis shares one budget). Fail open (docs/decisions/0006-rate-limits.md): while Redis is unreachable or slow, `consume`
 * answers true within `timeoutMs` through the insurance limiter, warns at most once per interval, and uses
 * Redis again as soon as the client has reconnected. Nothing queues while Redis is away, so no burst of
 * stale commands follows.
 */
export class RedisRateLimiter implements RateLimiter {
  private readonly client: Redis;
  private readonly timeoutMs: number;
  private readonly keyPrefix: string;
  private readonly logger: LimiterLogger;
  private readonly warnIntervalMs: number;
  private readonly insurance: FailOpenInsurance;
  /** One library limiter per bucket and window shape; the port passes both on every call. */
  private readonly limiters = new Map<string, RateLimiterRedis>();
  private lastError: Error | undefined;
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
    this.insurance = new FailOpenInsurance(() => this.degraded());
    this.client = new Redis(options.url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 1000,
      // Bounds a slow Redis: the command fails after timeoutMs and the insurance limiter answers.
      commandTimeout: this.timeoutMs,
      // Keep reconnecting forever, at most a second apart, so the limiter comes back on its own.
      retryStrategy: (attempt) => Math.min(attempt * 100, 1000),
    });
    this.firstAttempt = new Promise((resolve) => {
      const settle = () => {
        this.connecting = false;
        resolve();
      };
      this.client.once('ready', settle);
      this.client.once('error', settle);
      this.client.once('close', settle);
    });
    this.client.on('error', (err: Error) => {
      this.lastError = err;
      this.degraded();
    });
  }

  async consume(bucket: string, key: string, points: number, windowSeconds: number): Promise<boolean> {
    // Only the first connection attempt is worth waiting for; after that a missing Redis fails open at once.
    if (this.connecting) await this.within(this.firstAttempt, this.timeoutMs).catch(() => undefined); // outlasting the wait is not an error: the limiter below then fails open and warns
    try {
      const res = await this.limiter(bucket, points, windowSeconds).consume(key);
      if (!this.insurance.answered.has(res)) this.recovered();
      return true;
    } catch (refused) {
      if (refused instanceof RateLimiterRes) {
        this.recovered();
        return false;
      }
      // The insurance limiter never throws, so this is a bug in the wiring, not Redis being away.
      throw refused;
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

  private limiter(bucket: string, points: number, windowSeconds: number): RateLimiterRedis {
    const id = `${bucket}\u0000${points}\u0000${windowSeconds}`;
    let limiter = this.limiters.get(id);
    if (!limiter) {
      limiter = new RateLimiterRedis({
        storeClient: this.client,
        // The library joins prefix and key with ':', so keys stay `dashpub:rl:<bucket>:<key>`.
        keyPrefix: `${this.keyPrefix}${bucket}`,
        points,
        duration: windowSeconds,
        // Not connected: go straight to the insurance limiter instead of erring on the offline queue.
        rejectIfRedisNotReady: true,
        insuranceLimiter: this.insurance,
      });
      this.limiters.set(id, limiter);
    }
    return limiter;
  }

  private within<T>(work: Promise<T>, ms: number): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`Redis did not answer within ${ms} ms`)), ms);
    });
    work.catch(() => undefined); // a late rejection after the timeout won is expected, not unhandled
    return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
  }

  private degraded(): void {
    this.failing = true;
    const now = Date.now();
    if (now - this.lastWarnAt < this.warnIntervalMs) return;
    this.lastWarnAt = now;
    const reason = this.lastError?.message ?? `no answer within ${this.timeoutMs} ms`;
    this.logger.warn({ reason }, 'rate limiter: Redis unavailable, allowing requests (fail open)');
  }

  private recovered(): void {
    if (!this.failing) return;
    this.failing = false;
    this.lastError = undefined;
    this.logger.info?.({}, 'rate limiter: Redis reachable again, limits enforced');
  }
}
