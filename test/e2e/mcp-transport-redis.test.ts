import { expect } from 'chai';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { promisify } from 'node:util';
import { RedisRateLimiter } from '../../adapters/redis/redis-rate-limiter.js';
import { postMcp } from '../support/http.js';
import { freePort } from '../support/server.js';
import { startMcpTestServer, TOKENS, type McpTestServer } from './mcp-transport-fixtures.js';

const run = promisify(execFile);
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const LIMIT_TEXT = 'Rate limit exceeded for publish_dashboard: too many requests. Wait about 60 seconds and try again.';
const quiet = { warn: () => undefined, info: () => undefined };

async function publish(server: McpTestServer, path: string) {
  const res = await postMcp(server.url, { jsonrpc: '2.0', id: path, method: 'tools/call', params: { name: 'publish_dashboard', arguments: { path } } }, TOKENS.alice);
  expect(res.status).to.equal(200);
  return res.json().result as { content: Array<{ text: string }>; isError?: boolean };
}

describe('MCP rate limits on Redis', function () {
  this.timeout(20000);

  it('two servers sharing one Redis share one 60-per-minute publish budget', async () => {
    const keyPrefix = `dashpub-test:${randomBytes(4).toString('hex')}:`;
    const limiters = [new RedisRateLimiter({ url: REDIS_URL, keyPrefix, logger: quiet }), new RedisRateLimiter({ url: REDIS_URL, keyPrefix, logger: quiet })];
    const servers = await Promise.all(limiters.map((rateLimiter) => startMcpTestServer({ rateLimiter })));
    try {
      for (const limiter of limiters) expect(await limiter.ready()).to.equal(true);
      const results = [];
      for (let i = 0; i < 61; i++) results.push(await publish(servers[i % 2]!, `p-${i}`));
      expect(results.slice(0, 60).every((r) => !r.isError)).to.equal(true);
      expect(results[60]).to.deep.equal({ content: [{ type: 'text', text: LIMIT_TEXT }], isError: true });
      expect((servers[0]!.runs.publish_dashboard ?? 0) + (servers[1]!.runs.publish_dashboard ?? 0)).to.equal(60);
      // The other server is out of budget too.
      expect((await publish(servers[1]!, 'p-62')).isError).to.equal(true);
    } finally {
      for (const server of servers) await server.close();
      for (const limiter of limiters) await limiter.close();
    }
  });

  it('keeps publishing while Redis is stopped mid-test, and limits again once it is back', async () => {
    const port = await freePort();
    const cli = (...args: string[]) => run('redis-cli', ['-p', String(port), ...args]).then((r) => r.stdout.trim());
    const waitFor = async (up: boolean) => {
      for (let i = 0; i < 50; i++) {
        const pong = (await cli('ping').catch(() => '')) === 'PONG';
        if (pong === up) return;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      throw new Error(`redis on ${port} did not ${up ? 'start' : 'stop'}`);
    };
    const startRedis = async () => {
      await run('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--daemonize', 'yes']);
      await waitFor(true);
    };
    await startRedis();
    const limiter = new RedisRateLimiter({ url: `redis://127.0.0.1:${port}`, timeoutMs: 200, logger: quiet });
    const server = await startMcpTestServer({ rateLimiter: limiter });
    try {
      expect(await limiter.ready()).to.equal(true);
      for (let i = 0; i < 60; i++) expect((await publish(server, `before-${i}`)).isError).to.equal(undefined);
      expect((await publish(server, 'over')).content[0]!.text).to.equal(LIMIT_TEXT);

      await cli('shutdown', 'nosave').catch(() => undefined);
      await waitFor(false);
      const started = Date.now();
      for (let i = 0; i < 5; i++) expect((await publish(server, `during-${i}`)).isError, 'fail open').to.equal(undefined);
      expect(Date.now() - started).to.be.below(2000);

      await startRedis();
      expect(await limiter.ready(8000)).to.equal(true);
      // A fresh server kept no counters: 60 more, then the 61st is refused again.
      for (let i = 0; i < 60; i++) expect((await publish(server, `after-${i}`)).isError).to.equal(undefined);
      expect((await publish(server, 'over-again')).content[0]!.text).to.equal(LIMIT_TEXT);
    } finally {
      await server.close();
      await limiter.close();
      await cli('shutdown', 'nosave').catch(() => undefined);
    }
  });
});
