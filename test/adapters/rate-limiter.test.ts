import { expect } from 'chai';
import { MemoryRateLimiter } from '../../adapters/memory/memory-rate-limiter.js';
import { RedisRateLimiter } from '../../adapters/redis/redis-rate-limiter.js';
import { describeRateLimiterContract } from './rate-limiter.contract.js';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

class FakeClock {
  constructor(public ms = Date.UTC(2025, 0, 1)) {}
  now = () => new Date(this.ms);
}

describeRateLimiterContract('memory', async () => {
  const clock = new FakeClock();
  return {
    limiter: new MemoryRateLimiter(clock),
    passWindow: async (seconds) => {
      clock.ms += seconds * 1000;
    },
    close: async () => undefined,
  };
});

describeRateLimiterContract('redis', async () => {
  const limiter = new RedisRateLimiter({ url: REDIS_URL, logger: { warn: () => undefined } });
  expect(await limiter.ready()).to.equal(true);
  return {
    limiter,
    passWindow: (seconds) => new Promise((resolve) => setTimeout(resolve, seconds * 1000 + 50)),
    close: () => limiter.close(),
  };
});

describe('MemoryRateLimiter', () => {
  it('evicts windows that have ended', async () => {
    const clock = new FakeClock();
    const limiter = new MemoryRateLimiter(clock);
    for (let i = 0; i < 100; i++) await limiter.consume('publish_dashboard', `user-${i}`, 60, 60);
    expect(limiter.size()).to.equal(100);
    clock.ms += 61_000;
    await limiter.consume('publish_dashboard', 'late-user', 60, 60);
    expect(limiter.size()).to.equal(1);
  });

  it('does not evict a window that is still running', async () => {
    const clock = new FakeClock();
    const limiter = new MemoryRateLimiter(clock);
    await limiter.consume('b', 'long', 1, 600);
    await limiter.consume('b', 'short', 1, 5);
    clock.ms += 30_000;
    await limiter.consume('b', 'other', 1, 60);
    expect(limiter.size()).to.equal(2);
    expect(await limiter.consume('b', 'long', 1, 600)).to.equal(false);
  });
});
