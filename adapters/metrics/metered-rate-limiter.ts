import type { RateLimiter } from '../../application/ports/rate-limiter.js';
import type { Telemetry } from '../../application/ports/telemetry.js';

/** Any rate limiter, with each refusal counted by its bucket (the limit's name). */
export class MeteredRateLimiter implements RateLimiter {
  constructor(
    private readonly inner: RateLimiter,
    private readonly telemetry: Pick<Telemetry, 'rateLimitRefused'>,
  ) {}

  async consume(bucket: string, key: string, points: number, windowSeconds: number): Promise<boolean> {
    const allowed = await this.inner.consume(bucket, key, points, windowSeconds);
    if (!allowed) this.telemetry.rateLimitRefused(bucket);
    return allowed;
  }
}
