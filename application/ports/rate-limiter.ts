export const RateLimiter = Symbol.for('RateLimiter');
/**
 * Fixed-window counters. `consume` resolves true when allowed. Implementations fail open:
 * an unreachable backend answers true within a bounded wait.
 */
export interface RateLimiter {
  consume(bucket: string, key: string, points: number, windowSeconds: number): Promise<boolean>;
}
