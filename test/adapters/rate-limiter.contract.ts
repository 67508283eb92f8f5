import { expect } from 'chai';
import { randomBytes } from 'node:crypto';
import type { RateLimiter } from '../../application/ports/rate-limiter.js';

export interface RateLimiterHarness {
  limiter: RateLimiter;
  /** Lets a window of `windowSeconds` end: a fake clock advances, a real one is waited for. */
  passWindow(windowSeconds: number): Promise<void>;
  close(): Promise<void>;
}

const unique = (label: string) => `${label}-${randomBytes(4).toString('hex')}`;

async function consumeTimes(limiter: RateLimiter, times: number, bucket: string, key: string, points: number, windowSeconds: number) {
  const answers: boolean[] = [];
  for (let i = 0; i < times; i++) answers.push(await limiter.consume(bucket, key, points, windowSeconds));
  return answers;
}

/** What every RateLimiter adapter must do: the same suite runs against memory and Redis. */
export function describeRateLimiterContract(name: string, make: () => Promise<RateLimiterHarness>) {
  describe(`RateLimiter contract: ${name}`, () => {
    let harness: RateLimiterHarness;
    beforeEach(async () => {
      harness = await make();
    });
    afterEach(async () => {
      await harness.close();
    });

    it('allows exactly `points` calls in one window, then refuses', async () => {
      const answers = await consumeTimes(harness.limiter, 5, unique('b'), 'user-1', 3, 60);
      expect(answers).to.deep.equal([true, true, true, false, false]);
    });

    it('keeps separate budgets per key and per bucket', async () => {
      const bucket = unique('b');
      expect(await consumeTimes(harness.limiter, 2, bucket, 'alice', 1, 60)).to.deep.equal([true, false]);
      expect(await harness.limiter.consume(bucket, 'bob', 1, 60)).to.equal(true);
      expect(await harness.limiter.consume(unique('other'), 'alice', 1, 60)).to.equal(true);
    });

    it('starts a fresh window once the previous one has ended', async () => {
      const bucket = unique('b');
      expect(await consumeTimes(harness.limiter, 3, bucket, 'k', 2, 1)).to.deep.equal([true, true, false]);
      await harness.passWindow(1);
      expect(await consumeTimes(harness.limiter, 3, bucket, 'k', 2, 1)).to.deep.equal([true, true, false]);
    });

    it('never allows more than `points` under concurrent calls', async () => {
      const bucket = unique('b');
      const answers = await Promise.all(Array.from({ length: 25 }, () => harness.limiter.consume(bucket, 'k', 7, 60)));
      expect(answers.filter(Boolean)).to.have.length(7);
    });

    it('treats keys containing separators as distinct', async () => {
      const bucket = unique('b');
      expect(await harness.limiter.consume(bucket, '::1', 1, 60)).to.equal(true);
      expect(await harness.limiter.consume(bucket, '::2', 1, 60)).to.equal(true);
      expect(await harness.limiter.consume(bucket, '::1', 1, 60)).to.equal(false);
    });
  });
}
