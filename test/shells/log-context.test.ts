import { expect } from 'chai';
import { MemoryRateLimiter } from '../../adapters/memory/memory-rate-limiter.js';
import type { Principal, TokenVerifier } from '../../application/ports/token-verifier.js';
import { loadSettings } from '../../shells/config.js';
import { inLogContext, logContext, type LogContext } from '../../shells/logger.js';
import { createMcpHandler, mcpFront } from '../../shells/koa/mcp/endpoint.js';
import type { ServedTool } from '../../shells/koa/mcp/tool-registry.js';
import { aPrincipal } from '../support/mothers.js';
import { captureLogs } from '../support/logs.js';
import { listenOn } from '../support/server.js';
import { stubResources } from '../e2e/mcp-transport-fixtures.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('shells: the request log context', () => {
  it("keeps each request's id on the lines its work writes, however deep, while requests overlap", async () => {
    const { lines, logger } = captureLogs();
    const work = (name: string, wait: number) => async () => {
      await sleep(wait);
      logger.child({ component: 'deep' }).info({ name }, 'step');
      await Promise.resolve();
      await sleep(wait);
      logger.info({ name }, 'step');
    };
    await Promise.all([inLogContext({ reqId: 'req-a' }, work('a', 5)), inLogContext({ reqId: 'req-b' }, work('b', 2))]);
    expect(lines).to.have.length(4);
    for (const line of lines) expect(line.reqId).to.equal(`req-${line.name}`);
  });

  it('is off once no request is inside it: work a request left running logs without its id', async () => {
    const { lines, logger } = captureLogs();
    let later: Promise<void> = Promise.resolve();
    await inLogContext({ reqId: 'req-1' }, async () => {
      later = sleep(10).then(() => logger.info('after the request'));
      logger.info('during the request');
    });
    await later;
    expect(lines.map((line) => [line.msg, line.reqId])).to.deep.equal([
      ['during the request', 'req-1'],
      ['after the request', undefined],
    ]);
    expect(logContext.getStore()).to.equal(undefined);
  });

  it('on the node:http MCP front, runs a tool call in the request context and a fixed answer for a remembered token in none', async () => {
    const principal: Principal = aPrincipal('alice-id');
    const verifier: TokenVerifier = { verify: async () => principal, remembered: () => principal };
    const seen: Array<LogContext | undefined> = [];
    class NoInput {}
    const probe: ServedTool = {
      name: 'probe',
      title: 'Probe',
      description: 'Says which log context it ran in.',
      input: NoInput,
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
      async call() {
        await sleep(1);
        seen.push(logContext.getStore());
        return { content: [{ type: 'text', text: 'probed' }] };
      },
    };
    const handler = createMcpHandler({ settings: loadSettings({}), verifier, tools: [probe], resources: stubResources, rateLimiter: new MemoryRateLimiter({ now: () => new Date() }) });
    const front = mcpFront(handler, () => undefined);
    // Every context the front enters, counted by wrapping the storage's own run.
    const entered: LogContext[] = [];
    const run = logContext.run.bind(logContext);
    logContext.run = ((store: LogContext, callback: (...args: unknown[]) => unknown, ...args: unknown[]) => {
      entered.push(store);
      return run(store, callback, ...args);
    }) as typeof logContext.run;
    let requests = 0;
    const server = await listenOn((req, res) => void front(req, res, [], { reqId: `req-${++requests}` }));
    try {
      const post = async (body: unknown) => {
        const res = await fetch(`${server.url}/mcp`, {
          method: 'POST',
          headers: { authorization: 'Bearer t', accept: 'application/json, text/event-stream', 'content-type': 'application/json' },
          body: JSON.stringify(body),
        });
        expect(res.status).to.equal(200);
        return res.json();
      };
      await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
      expect(entered, 'a fixed answer enters no context').to.deep.equal([]);
      const called = (await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'probe', arguments: {} } })) as { result: { isError?: boolean } };
      expect(called.result.isError).to.equal(undefined);
      expect(entered).to.deep.equal([{ reqId: 'req-2' }]);
      expect(seen).to.deep.equal([{ reqId: 'req-2' }]);
    } finally {
      logContext.run = run;
      await server.close();
    }
  });
});
