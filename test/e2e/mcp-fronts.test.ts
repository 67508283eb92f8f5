import { expect } from 'chai';
import net from 'node:net';
import Koa from 'koa';
import { MemoryRateLimiter } from '../../adapters/memory/memory-rate-limiter.js';
import { mcpFront, mcpMiddleware, type McpHandler } from '../../shells/koa/mcp/endpoint.js';
import { listen, listenOn, type Listening } from '../support/server.js';
import { startMcpTestServer, TOKENS, type McpTestServer } from './mcp-transport-fixtures.js';

/** The whole response as bytes (status line, headers, body), with the Date header taken out. */
function exchange(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1').replace(/\r\nDate: [^\r]*/i, '')));
    socket.end(request);
  });
}

function post(body: string, headers: Record<string, string> = {}, method = 'POST', path = '/mcp'): string {
  const lines = [`${method} ${path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close', 'Content-Type: application/json', `Content-Length: ${Buffer.byteLength(body)}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return `${lines.join('\r\n')}\r\n\r\n${body}`;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
const rpc = (method: string, params?: unknown, id: unknown = 1) => JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });

describe('MCP endpoint: the node:http front sends the bytes the Koa front sends', function () {
  const servers: McpTestServer[] = [];
  let koa: McpTestServer;
  let node: McpTestServer;
  before(async () => {
    koa = await startMcpTestServer({ rateLimiter: new MemoryRateLimiter({ now: () => new Date() }), front: 'koa', maxBodyBytes: 4096 });
    node = await startMcpTestServer({ rateLimiter: new MemoryRateLimiter({ now: () => new Date() }), front: 'node', maxBodyBytes: 4096 });
    servers.push(koa, node);
  });
  after(async () => {
    for (const server of servers) await server.close();
  });

  const cases: Array<[string, string]> = [
    ['tools/list', post(rpc('tools/list'), bearer(TOKENS.alice))],
    ['initialize', post(rpc('initialize', { protocolVersion: '2025-06-18' }, 'init'), bearer(TOKENS.alice))],
    ['a tool call', post(rpc('tools/call', { name: 'echo', arguments: { text: 'héllo' } }), bearer(TOKENS.alice))],
    ['an unknown method', post(rpc('nope/nothing'), bearer(TOKENS.alice))],
    ['a batch', post(`[${rpc('ping', undefined, 1)},${rpc('tools/list', undefined, 2)}]`, bearer(TOKENS.alice))],
    ['an empty batch', post('[]', bearer(TOKENS.alice))],
    ['a lone notification (202)', post(JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), bearer(TOKENS.alice))],
    ['a batch of notifications (204)', post(JSON.stringify([{ jsonrpc: '2.0', method: 'notifications/initialized' }]), bearer(TOKENS.alice))],
    ['an invalid request', post(JSON.stringify({ jsonrpc: '1.0', id: 3 }), bearer(TOKENS.alice))],
    ['a parse error', post('{"jsonrpc":', bearer(TOKENS.alice))],
    ['no token (401)', post(rpc('tools/list'))],
    ['a token not known (401)', post(rpc('tools/list'), bearer('nobody'))],
    ['a verifier that fails (503)', post(rpc('tools/list'), bearer(TOKENS.broken))],
    ['a body over the cap (413)', post(rpc('tools/call', { name: 'echo', arguments: { text: 'x'.repeat(5000) } }), bearer(TOKENS.alice))],
    ['GET (405)', post('', {}, 'GET')],
    ['HEAD (405, no body)', post('', {}, 'HEAD')],
    ['/mcp/ with a query', post(rpc('ping'), bearer(TOKENS.alice), 'POST', '/mcp/?x=1')],
  ];

  for (const [name, request] of cases) {
    it(name, async () => {
      const viaKoa = await exchange(koa.port, request);
      const viaNode = await exchange(node.port, request);
      expect(viaKoa).to.match(/^HTTP\/1\.1 \d{3} /);
      expect(viaNode).to.equal(viaKoa);
    });
  }

  it('leaves other paths to Koa', async () => {
    const res = await exchange(node.port, post('', {}, 'GET', '/extra-route'));
    expect(res).to.match(/^HTTP\/1\.1 200 [^]*\r\n\r\nextra$/);
  });

  it('answers a failure as Koa does, and reports it once', async () => {
    const broken: McpHandler = async () => {
      throw new Error('store exploded');
    };
    const reported: unknown[] = [];
    const koaApp = new Koa().use(mcpMiddleware(broken));
    koaApp.silent = true;
    const viaKoa: Listening = await listen(koaApp);
    const direct = mcpFront(broken, (err) => reported.push(err));
    const viaNode: Listening = await listenOn((req, res) => {
      if (!direct(req, res)) res.end();
    });
    try {
      const fromKoa = await exchange(viaKoa.port, post(rpc('ping'), { ...bearer(TOKENS.alice), 'X-Extra': '1' }));
      const fromNode = await exchange(viaNode.port, post(rpc('ping'), { ...bearer(TOKENS.alice), 'X-Extra': '1' }));
      expect(fromKoa).to.match(/^HTTP\/1\.1 500 Internal Server Error\r\n[^]*\r\n\r\nInternal Server Error$/);
      expect(fromNode).to.equal(fromKoa);
      expect(reported).to.have.length(1);
      expect((reported[0] as Error).message).to.equal('store exploded');
    } finally {
      await viaKoa.close();
      await viaNode.close();
    }
  });
});
