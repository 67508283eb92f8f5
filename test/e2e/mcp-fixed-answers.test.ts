import { expect } from 'chai';
import type { Principal } from '../../application/ports/token-verifier.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { McpMethods, SUPPORTED_PROTOCOL_VERSIONS } from '../../shells/koa/mcp/methods.js';
import { defaultPrompts, PromptCatalog } from '../../shells/koa/mcp/prompts.js';
import { ToolRegistry } from '../../shells/koa/mcp/tool-registry.js';
import { serveTools } from '../../shells/koa/mcp/tools/index.js';
import { dashboardResourceSource } from '../../shells/koa/mcp/tools/dashboard-resource-source.js';
import { MemoryRateLimiter } from '../../adapters/memory/memory-rate-limiter.js';
import { systemClock } from '../../shells/container.js';
import { testSettings } from '../support/settings.js';
import { request } from '../support/http.js';
import { startMcpTestServer, TOKENS } from './mcp-transport-fixtures.js';

/**
 * The answers serialised once at start-up are the bytes the method handlers would have produced for
 * each request (docs/decisions/0039-mcp-fast-answers.md), with the production tools.
 */
describe('e2e: MCP answers fixed at start-up', () => {
  let app: AppContainer;
  let methods: McpMethods;
  const principal: Principal = { userId: 'u', grantId: 'g', lock: { kind: 'personal' }, scope: 'dashboards' };

  before(async () => {
    const settings = testSettings({ serviceName: 'acme' });
    app = await buildContainer(settings, { storage: 'memory', refreshWorkers: false });
    const c = app.container;
    const tools = serveTools(c);
    methods = new McpMethods(settings, new ToolRegistry(tools, new MemoryRateLimiter(systemClock)), new PromptCatalog(defaultPrompts(settings)), dashboardResourceSource(c, 'acme'));
  });

  after(() => app.close());

  const cases: Array<[string, Record<string, unknown>]> = [
    ['tools/list', {}],
    ['tools/list', { cursor: 'ignored' }],
    ['prompts/list', {}],
    ['resources/templates/list', {}],
    ...SUPPORTED_PROTOCOL_VERSIONS.map((v): [string, Record<string, unknown>] => ['initialize', { protocolVersion: v }]),
    ['initialize', { protocolVersion: '1999-01-01' }],
    ['initialize', {}],
  ];
  for (const [method, params] of cases) {
    it(`${method} ${JSON.stringify(params)} matches what the handler answers`, async () => {
      const fixed = methods.fixedResult(method, params);
      expect(fixed).to.be.a('string');
      expect(fixed).to.equal(JSON.stringify(await methods.handle(principal, method, params)));
    });
  }

  it('fixes nothing else, not even a method named like a cache key', () => {
    for (const method of ['tools/call', 'ping', 'resources/list', 'initialize 2025-06-18', 'prompts/get']) expect(methods.fixedResult(method, {})).to.equal(undefined);
  });
});

describe('e2e: MCP fixed answers on the wire', () => {
  it('writes the reply envelope as JSON.stringify would, for every kind of id, alone and in a batch', async () => {
    const server = await startMcpTestServer({ rateLimiter: new MemoryRateLimiter(systemClock) });
    try {
      const post = async (body: unknown) =>
        (await request({ url: `${server.url}/mcp`, method: 'POST', headers: { authorization: `Bearer ${TOKENS.alice}`, accept: 'application/json' }, body })).text;
      const tools = JSON.parse(await post({ jsonrpc: '2.0', id: 0, method: 'tools/list' })).result;
      for (const id of [7, -1.5, 1e21, 'plain', 'quote " and \\ and \u2028 and é', null]) {
        expect(await post({ jsonrpc: '2.0', id, method: 'tools/list' })).to.equal(JSON.stringify({ jsonrpc: '2.0', id, result: tools }));
      }
      const batch = await post([
        { jsonrpc: '2.0', id: 'a', method: 'tools/list' },
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 'b', method: 'ping' },
      ]);
      expect(batch).to.equal(JSON.stringify([{ jsonrpc: '2.0', id: 'a', result: tools }, { jsonrpc: '2.0', id: 'b', result: {} }]));
    } finally {
      await server.close();
    }
  });
});
