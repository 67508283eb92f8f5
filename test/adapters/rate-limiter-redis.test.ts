import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import { promisify } from 'node:util';
import { RedisRateLimiter, type LimiterLogger } from '../../adapters/redis/redis-rate-limiter.js';
import { freePort } from '../support/server.js';

const run = promisify(execFile);
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const unique = (label: string) => `${label}-${randomBytes(4).toString('hex')}`;

class RecordingLogger implements LimiterLogger {
  warnings: string[] = [];
  infos: string[] = [];
  warn(_data: object, message: string) {
    this.warnings.push(message);
  }
  info(_data: object, message: string) {
    this.infos.push(message);
  }
}

async function timed<T>(work: Promise<T>): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  const value = await work;
  return { value, ms: Date.now() - started };
}

async function until(check: () => Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await sleep(100);
  }
  return false;
}

/** A throwaway redis-server of our own on a spare port, so stopping it touches nobody else's. */
class SpareRedis {
  constructor(readonly port: number) {}
  get url() {
    return `redis://127.0.0.1:${this.port}`;
  }
  async start() {
    await run('redis-server', ['--port', String(this.port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'yes']);
    const up = await until(async () => (await this.cli('ping').catch(() => '')) === 'PONG', 5000);
    if (!up) throw new Error(`redis-server on ${this.port} did not start`);
  }
  async stop() {
    await this.cli('shutdown', 'nosave').catch(() => undefined);
    await until(async () => (await this.cli('ping').catch(() => '')) !== 'PONG', 5000);
  }
  async cli(...args: string[]): Promise<string> {
    const { stdout } = await run('redis-cli', ['-p', String(this.port), ...args]);
    return stdout.trim();
  }
}

describe('RedisRateLimiter', function () {
  this.timeout(20000);

  it('shares one budget between two instances on one Redis', async () => {
    const a = new RedisRateLimiter({ url: REDIS_URL });
    const b = new RedisRateLimiter({ url: REDIS_URL });
    try {
      expect(await a.ready()).to.equal(true);
      expect(await b.ready()).to.equal(true);
      const bucket = unique('publish_dashboard');
      const answers: boolean[] = [];
      for (let i = 0; i < 10; i++) answers.push(await (i % 2 ? b : a).consume(bucket, 'user-1', 6, 60));
      expect(answers.filter(Boolean)).to.have.length(6);
      expect(answers.slice(6)).to.deep.equal([false, false, false, false]);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('fails open within the bounded wait when nothing listens on the port, warning once', async () => {
    const logger = new RecordingLogger();
    const limiter = new RedisRateLimiter({ url: `redis://127.0.0.1:${await freePort()}`, timeoutMs: 200, logger });
    try {
      for (let i = 0; i < 5; i++) {
        const { value, ms } = await timed(limiter.consume(unique('b'), 'k', 1, 60));
        expect(value).to.equal(true);
        expect(ms).to.be.below(450);
      }
      // Same key, over its ceiling: still allowed, since nothing can count it.
      const bucket = unique('b');
      expect([await limiter.consume(bucket, 'k', 1, 60), await limiter.consume(bucket, 'k', 1, 60)]).to.deep.equal([true, true]);
      expect(logger.warnings).to.have.length(1);
      expect(logger.warnings[0]).to.contain('fail open');
    } finally {
      await limiter.close();
    }
  });

  it('fails open within the bounded wait when Redis accepts connections but never answers', async () => {
    const sockets: net.Socket[] = [];
    const blackhole = net.createServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => blackhole.listen(0, '127.0.0.1', resolve));
    const { port } = blackhole.address() as net.AddressInfo;
    const logger = new RecordingLogger();
    const limiter = new RedisRateLimiter({ url: `redis://127.0.0.1:${port}`, timeoutMs: 200, logger });
    try {
      for (let i = 0; i < 3; i++) {
        const { value, ms } = await timed(limiter.consume(unique('b'), 'k', 1, 60));
        expect(value).to.equal(true);
        expect(ms).to.be.below(450);
      }
      expect(sockets.length).to.be.greaterThan(0);
      expect(logger.warnings).to.have.length(1);
    } finally {
      await limiter.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => blackhole.close(resolve));
    }
  });

  describe('with a redis-server that goes away mid-test', () => {
    let spare: SpareRedis;
    before(async () => {
      spare = new SpareRedis(await freePort());
      await spare.start();
    });
    after(async () => {
      await spare.stop();
    });

    it('fails open while the server is paused (slow), then counts again', async () => {
      const logger = new RecordingLogger();
      const limiter = new RedisRateLimiter({ url: spare.url, timeoutMs: 200, logger });
      try {
        expect(await limiter.ready()).to.equal(true);
        const bucket = unique('b');
        expect(await limiter.consume(bucket, 'k', 1, 60)).to.equal(true);
        expect(await limiter.consume(bucket, 'k', 1, 60)).to.equal(false);
        await spare.cli('client', 'pause', '1500', 'all');
        const { value, ms } = await timed(limiter.consume(bucket, 'k', 1, 60));
        expect(value, 'a slow Redis lets the call through').to.equal(true);
        expect(ms).to.be.below(450);
        expect(logger.warnings).to.have.length(1);
        // Once the pause ends the same key is refused again: the counter was never lost.
        expect(await until(async () => (await limiter.consume(bucket, 'k', 1, 60)) === false, 5000)).to.equal(true);
      } finally {
        await limiter.close();
      }
    });

    it('allows calls while Redis is stopped and enforces limits again once it is back', async () => {
      const logger = new RecordingLogger();
      const limiter = new RedisRateLimiter({ url: spare.url, timeoutMs: 200, logger });
      try {
        expect(await limiter.ready()).to.equal(true);
        const bucket = unique('publish_dashboard');
        expect(await limiter.consume(bucket, 'u', 2, 60)).to.equal(true);
        expect(await limiter.consume(bucket, 'u', 2, 60)).to.equal(true);
        expect(await limiter.consume(bucket, 'u', 2, 60)).to.equal(false);

        await spare.stop();
        for (let i = 0; i < 10; i++) {
          const { value, ms } = await timed(limiter.consume(bucket, 'u', 2, 60));
          expect(value).to.equal(true);
          expect(ms).to.be.below(450);
        }
        expect(logger.warnings).to.have.length(1);

        await spare.start();
        // The restarted server kept nothing (--save ""), so a fresh window of 2 follows reconnection.
        const bucketAfter = unique('publish_dashboard');
        expect(await until(async () => limiter.ready(200), 8000)).to.equal(true);
        expect(await limiter.consume(bucketAfter, 'u', 2, 60)).to.equal(true);
        expect(await limiter.consume(bucketAfter, 'u', 2, 60)).to.equal(true);
        expect(await limiter.consume(bucketAfter, 'u', 2, 60)).to.equal(false);
        expect(logger.infos.some((m) => m.includes('reachable again'))).to.equal(true);
        expect(logger.warnings).to.have.length(1);
      } finally {
        await limiter.close();
      }
    });
  });
});
