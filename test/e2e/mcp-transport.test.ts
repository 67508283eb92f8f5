import { expect } from 'chai';
import { MemoryRateLimiter } from '../../adapters/memory/memory-rate-limiter.js';
import { postMcp, request } from '../support/http.js';
import { MCP_FRONTS, startMcpTestServer, stub, TOKENS, type McpTestServer } from './mcp-transport-fixtures.js';
import { Utf8Body } from '../../domain/utf8-body.js';
import { Text } from '../../shells/koa/mcp/tools/arguments.js';
import { INTERNAL_ERROR_MESSAGE } from '../../shells/koa/mcp/jsonrpc.js';

const clock = { now: () => new Date() };

for (const front of MCP_FRONTS) describe(`MCP endpoint over HTTP (${front} front)`, () => {
  let server: McpTestServer;
  before(async () => {
    server = await startMcpTestServer({ rateLimiter: new MemoryRateLimiter(clock), front });
  });
  after(async () => {
    await server.close();
  });

  const rpc = async (method: string, params?: unknown, token = TOKENS.alice, id: number | string = 1) => {
    const res = await postMcp(server.url, { jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }, token);
    expect(res.status, res.text).to.equal(200);
    return res.json();
  };
  const call = async (name: string, args?: unknown, token = TOKENS.alice) => rpc('tools/call', { name, arguments: args }, token);

  describe('routes', () => {
    it('GET /healthz answers ok as text/plain', async () => {
      const res = await request({ url: `${server.url}/healthz` });
      expect(res.status).to.equal(200);
      expect(res.text).to.equal('ok');
      expect(res.headers['content-type']).to.match(/^text\/plain/);
    });

    for (const [method, path] of [
      ['GET', '/'],
      ['GET', '/nope'],
      ['POST', '/mcpx'],
      ['POST', '/mcp/extra'],
      ['POST', '/api/mcp'],
      ['POST', '/healthz'],
    ] as const) {
      it(`${method} ${path} answers 404 Not Found`, async () => {
        const res = await request({ url: `${server.url}${path}`, method, headers: { authorization: `Bearer ${TOKENS.alice}` }, body: method === 'POST' ? {} : undefined });
        expect(res.status).to.equal(404);
        expect(res.text).to.equal('Not Found');
      });
    }

    it('passes other paths to the extra router', async () => {
      const res = await request({ url: `${server.url}/extra-route` });
      expect(res.status).to.equal(200);
      expect(res.text).to.equal('extra');
    });

    for (const method of ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS']) {
      for (const path of ['/mcp', '/mcp/']) {
        it(`${method} ${path} answers 405 with allow: POST`, async () => {
          const res = await request({ url: `${server.url}${path}`, method, headers: { authorization: `Bearer ${TOKENS.alice}` } });
          expect(res.status).to.equal(405);
          expect(res.headers.allow).to.equal('POST');
          expect(res.text).to.equal('Method Not Allowed');
        });
      }
    }

    it('serves POST /mcp/ like POST /mcp', async () => {
      const res = await request({
        url: `${server.url}/mcp/`,
        method: 'POST',
        headers: { authorization: `Bearer ${TOKENS.alice}` },
        body: { jsonrpc: '2.0', id: 7, method: 'ping' },
      });
      expect(res.status).to.equal(200);
      expect(res.json()).to.deep.equal({ jsonrpc: '2.0', id: 7, result: {} });
    });
  });

  describe('bearer token', () => {
    const expectedChallenge = 'Bearer resource_metadata="http://localhost:8787/.well-known/oauth-protected-resource"';

    it('answers 401 with WWW-Authenticate when the token is missing', async () => {
      const res = await postMcp(server.url, { jsonrpc: '2.0', id: 1, method: 'ping' });
      expect(res.status).to.equal(401);
      expect(res.headers['www-authenticate']).to.equal(expectedChallenge);
      expect(res.json().error).to.equal('invalid_token');
    });

    it('answers 401 with WWW-Authenticate for an unknown token or another scheme', async () => {
      for (const authorization of ['Bearer not-a-token', `Basic ${TOKENS.alice}`, 'Bearer', `Bearer ${TOKENS.alice} extra`]) {
        const res = await request({ url: `${server.url}/mcp`, method: 'POST', headers: { authorization }, body: { jsonrpc: '2.0', id: 1, method: 'ping' } });
        expect(res.status, authorization).to.equal(401);
        expect(res.headers['www-authenticate']).to.equal(expectedChallenge);
      }
    });

    it('checks the token before parsing the body', async () => {
      const res = await request({ url: `${server.url}/mcp`, method: 'POST', body: '{not json' });
      expect(res.status).to.equal(401);
      expect(res.headers['www-authenticate']).to.equal(expectedChallenge);
    });

    it('accepts the scheme name in any case', async () => {
      const res = await request({
        url: `${server.url}/mcp`,
        method: 'POST',
        headers: { authorization: `bearer ${TOKENS.alice}` },
        body: { jsonrpc: '2.0', id: 1, method: 'ping' },
      });
      expect(res.status).to.equal(200);
    });

    it('fails closed with 503 when the verifier itself fails', async () => {
      const before = server.logger.errors.length;
      const res = await postMcp(server.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, TOKENS.broken);
      expect(res.status).to.equal(503);
      expect(res.headers['retry-after']).to.equal('5');
      expect(res.json().error).to.equal('temporarily_unavailable');
      expect(res.text).not.to.contain('token store unreachable');
      expect(server.logger.errors.length).to.equal(before + 1);
    });
  });

  describe('transport rules', () => {
    it('answers a body that is not JSON with HTTP 400 and -32700 Parse error, id null', async () => {
      for (const body of ['{"jsonrpc": "2.0", "id": 1,', 'not json at all', '']) {
        const res = await postMcp(server.url, body, TOKENS.alice, { 'content-type': 'application/json' });
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.json()).to.deep.equal({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
        expect(res.headers['content-type']).to.match(/^application\/json/);
      }
    });

    it('answers application/json even when the client accepts text/event-stream', async () => {
      const res = await postMcp(server.url, { jsonrpc: '2.0', id: 1, method: 'ping' }, TOKENS.alice, { accept: 'text/event-stream, application/json' });
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.match(/^application\/json/);
      expect(res.headers['mcp-session-id']).to.equal(undefined);
    });

    it('answers a single notification with 202 and no body', async () => {
      for (const method of ['notifications/initialized', 'notifications/cancelled', 'notifications/unknown-kind']) {
        const res = await postMcp(server.url, { jsonrpc: '2.0', method, params: { requestId: 1 } }, TOKENS.alice);
        expect(res.status, method).to.equal(202);
        expect(res.text).to.equal('');
      }
    });

    it('acknowledges a client response object with 202', async () => {
      const res = await postMcp(server.url, { jsonrpc: '2.0', id: 5, result: {} }, TOKENS.alice);
      expect(res.status).to.equal(202);
      expect(res.text).to.equal('');
    });

    it('answers a batch of only notifications with 204 and no body', async () => {
      const res = await postMcp(
        server.url,
        [
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 3 } },
        ],
        TOKENS.alice,
      );
      expect(res.status).to.equal(204);
      expect(res.text).to.equal('');
    });

    it('answers a batch with the requests only, in request order', async () => {
      const res = await postMcp(
        server.url,
        [
          { jsonrpc: '2.0', id: 'a', method: 'ping' },
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', id: 'b', method: 'tools/call', params: { name: 'echo', arguments: { text: 'hi' } } },
          { jsonrpc: '2.0', id: 'c', method: 'no/such' },
        ],
        TOKENS.alice,
      );
      expect(res.status).to.equal(200);
      const replies = res.json();
      expect(replies.map((r: { id: string }) => r.id)).to.deep.equal(['a', 'b', 'c']);
      expect(replies[0].result).to.deep.equal({});
      expect(replies[1].result.structuredContent).to.deep.equal({ text: 'hi', times: 1, user: 'alice-id' });
      expect(replies[2].error).to.deep.equal({ code: -32601, message: 'Method not found: no/such' });
    });

    it('runs batch members concurrently', async () => {
      const started = Date.now();
      const res = await postMcp(
        server.url,
        [1, 2, 3, 4].map((n) => ({ jsonrpc: '2.0', id: n, method: 'tools/call', params: { name: 'slow', arguments: { ms: 400, label: `#${n}` } } })),
        TOKENS.alice,
      );
      const elapsed = Date.now() - started;
      expect(res.status).to.equal(200);
      expect(res.json().map((r: any) => r.result.content[0].text)).to.deep.equal(['done #1', 'done #2', 'done #3', 'done #4']);
      expect(elapsed, 'four 400 ms calls in one batch').to.be.below(1200);
    });

    it('reports an invalid member inside a batch without failing the others', async () => {
      const res = await postMcp(server.url, [{ jsonrpc: '2.0', id: 1, method: 'ping' }, { id: 2, method: 'ping' }, 42], TOKENS.alice);
      expect(res.status).to.equal(200);
      const replies = res.json();
      expect(replies).to.have.length(3);
      expect(replies[0]).to.deep.equal({ jsonrpc: '2.0', id: 1, result: {} });
      expect(replies[1].id).to.equal(2);
      expect(replies[1].error.code).to.equal(-32600);
      expect(replies[2].id).to.equal(null);
      expect(replies[2].error.code).to.equal(-32600);
    });

    it('answers an empty batch and an invalid envelope with HTTP 400 and -32600', async () => {
      for (const body of [[], { jsonrpc: '1.0', id: 1, method: 'ping' }, { jsonrpc: '2.0', id: 1 }, { jsonrpc: '2.0', id: { x: 1 }, method: 'ping' }, 'text']) {
        const res = await postMcp(server.url, typeof body === 'string' ? JSON.stringify(body) : body, TOKENS.alice);
        expect(res.status, JSON.stringify(body)).to.equal(400);
        expect(res.json().error.code, JSON.stringify(body)).to.equal(-32600);
        expect(res.json().error.message).to.match(/^Invalid Request/);
      }
    });

    it('answers params that are not an object with -32602', async () => {
      const res = await postMcp(server.url, { jsonrpc: '2.0', id: 9, method: 'ping', params: [1, 2] }, TOKENS.alice);
      expect(res.status).to.equal(200);
      expect(res.json()).to.deep.include({ id: 9 });
      expect(res.json().error.code).to.equal(-32602);
    });

    it('still runs a method sent as a notification, without replying', async () => {
      const before = server.runs.echo ?? 0;
      const res = await postMcp(server.url, { jsonrpc: '2.0', method: 'tools/call', params: { name: 'echo', arguments: { text: 'x' } } }, TOKENS.alice);
      expect(res.status).to.equal(202);
      expect(server.runs.echo).to.equal(before + 1);
    });
  });

  describe('initialize and ping', () => {
    for (const [requested, answered] of [
      ['2025-06-18', '2025-06-18'],
      ['2024-11-05', '2024-11-05'],
      ['2025-11-25', '2025-06-18'],
      ['1999-01-01', '2025-06-18'],
      [undefined, '2025-06-18'],
    ] as const) {
      it(`answers protocolVersion ${answered} when the client asks for ${requested ?? 'nothing'}`, async () => {
        const reply = await rpc('initialize', {
          ...(requested ? { protocolVersion: requested } : {}),
          capabilities: {},
          clientInfo: { name: 't', version: '1' },
        });
        expect(reply.result.protocolVersion).to.equal(answered);
      });
    }

    it('advertises the capabilities, the server identity and standing instructions', async () => {
      const { result } = await rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } });
      expect(result.capabilities).to.deep.equal({
        tools: { listChanged: false },
        prompts: { listChanged: false },
        resources: { listChanged: false },
      });
      expect(result.serverInfo).to.deep.equal({ name: 'service', version: '0.6.0' });
      expect(result.instructions).to.be.a('string');
      for (const fragment of ['[a-z0-9-]', 'http://<handle>.dash.localhost:8787/<slug>', 'BEGIN_JSON', 'isError', 're-authorize', 'snapshot', 'service://{handle}/{slug}', ':id.from and :id.to']) {
        expect(result.instructions).to.contain(fragment);
      }
    });

    it('answers ping with an empty result', async () => {
      expect(await rpc('ping', undefined, TOKENS.alice, 'p-1')).to.deep.equal({ jsonrpc: '2.0', id: 'p-1', result: {} });
    });

    it('answers an unknown method with -32601 Method not found: <method>', async () => {
      const reply = await rpc('resources/subscribe', { uri: 'service://alice/alpha' });
      expect(reply.error).to.deep.equal({ code: -32601, message: 'Method not found: resources/subscribe' });
    });
  });

  describe('tools', () => {
    it('lists every registered tool with its schemas and annotations', async () => {
      const { result } = await rpc('tools/list');
      expect(result.tools.map((t: { name: string }) => t.name)).to.deep.equal(['echo', 'whoami', 'label_version', 'refuse', 'crash', 'slow', 'publish_dashboard']);
      const echo = result.tools[0];
      expect(echo).to.have.keys('name', 'title', 'description', 'inputSchema', 'outputSchema', 'annotations');
      expect(echo.annotations).to.deep.equal({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
      expect(result.tools[1]).not.to.have.property('outputSchema');
    });

    it('calls a tool as the token\'s principal and returns its result envelope', async () => {
      const reply = await call('echo', { text: 'hey', times: 2 }, TOKENS.bob);
      expect(reply.result.isError).to.equal(undefined);
      expect(reply.result.content).to.have.length(1);
      expect(reply.result.content[0].type).to.equal('text');
      expect(reply.result.content[0].text).to.match(/^hey hey\nBEGIN_JSON\n/);
      expect(reply.result.structuredContent).to.deep.equal({ text: 'hey hey', times: 2, user: 'bob-id' });
    });

    it('treats missing arguments as an empty object', async () => {
      const reply = await rpc('tools/call', { name: 'whoami' });
      expect(reply.result.content[0].text).to.equal('You are alice-id.');
    });

    it('refuses an unknown tool with -32602', async () => {
      const reply = await call('no_such_tool', {});
      expect(reply.error).to.deep.equal({ code: -32602, message: 'Unknown tool: no_such_tool' });
    });

    it('refuses arguments that are not an object with -32602', async () => {
      const reply = await call('echo', ['hi']);
      expect(reply.error.code).to.equal(-32602);
    });

    const refusals: Array<[string, Record<string, unknown>, string]> = [
      ['an unknown argument', { text: 'x', foo: 1 }, 'unknown argument "foo"; accepted: text, times, tags, mode, version_id, workspace'],
      ['a missing required argument', {}, 'text is required'],
      ['a wrong type', { text: 5 }, 'text must be a string'],
      ['a non-integer', { text: 'x', times: 1.5 }, 'times must be an integer from 1 to 5'],
      ['an out-of-range integer', { text: 'x', times: 9 }, 'times must be an integer from 1 to 5'],
      ['a non-array', { text: 'x', tags: 'a,b' }, 'tags must be an array of strings'],
      ['a non-string array entry', { text: 'x', tags: ['a', 7] }, 'tags[1] must be a string (got number)'],
      ['a value outside the enum', { text: 'x', mode: 3 }, 'mode must be "loud" or "quiet"'],
      ['a malformed uuid', { text: 'x', version_id: 'v1' }, 'version_id must be a valid uuid'],
    ];
    for (const [what, args, text] of refusals) {
      it(`answers ${what} with an isError text naming the argument, before the tool runs`, async () => {
        const before = server.runs.echo ?? 0;
        const reply = await call('echo', args);
        expect(reply.result).to.deep.equal({ content: [{ type: 'text', text }], isError: true });
        expect(server.runs.echo ?? 0).to.equal(before);
      });
    }

    it('treats null as omitted for optional arguments and leaves workspace to the scope rules', async () => {
      const reply = await call('echo', { text: 'x', tags: null, times: null, workspace: 42 });
      expect(reply.result.isError).to.equal(undefined);
      expect(reply.result.structuredContent.times).to.equal(1);
    });

    it('passes null through for a required argument whose schema allows null, and refuses it missing', async () => {
      expect((await call('label_version', { name: null })).result.content[0].text).to.equal('label removed');
      expect((await call('label_version', { name: 'v1' })).result.content[0].text).to.equal('labelled v1');
      expect((await call('label_version', {})).result).to.deep.equal({ content: [{ type: 'text', text: 'name is required' }], isError: true });
      expect((await call('echo', { text: null })).result).to.deep.equal({ content: [{ type: 'text', text: 'text is required' }], isError: true });
    });

    it('turns a DomainError into an isError result carrying its text', async () => {
      const reply = await call('refuse', { slug: 'gone' });
      expect(reply.result).to.deep.equal({ content: [{ type: 'text', text: 'No dashboard named "gone" in your account' }], isError: true });
    });

    it('turns any other exception into -32000 Internal error: <the service\'s own text>, the thrown text logged only', async () => {
      const before = server.logger.errors.length;
      const reply = await call('crash', {});
      expect(reply.error).to.deep.equal({ code: -32000, message: INTERNAL_ERROR_MESSAGE });
      expect(JSON.stringify(reply)).to.not.include('database exploded');
      expect(server.logger.errors.length).to.equal(before + 1);
      expect(JSON.stringify(server.logger.errors.at(-1), (_key, value) => (value instanceof Error ? value.message : value))).to.include('database exploded');
    });

    it('refuses the 61st publish_dashboard in a minute with the spec text, per user', async () => {
      const answers = await Promise.all(Array.from({ length: 61 }, (_, i) => call('publish_dashboard', { path: `p${i}` })));
      const refused = answers.filter((a) => a.result.isError);
      expect(refused).to.have.length(1);
      expect(refused[0].result.content[0].text).to.equal(
        'Rate limit exceeded for publish_dashboard: too many requests. Wait about 60 seconds and try again.',
      );
      expect(server.runs.publish_dashboard).to.equal(60);
      const bob = await call('publish_dashboard', { path: 'mine' }, TOKENS.bob);
      expect(bob.result.isError).to.equal(undefined);
    });
  });

  describe('prompts', () => {
    it('lists the three prompts with their arguments', async () => {
      const { result } = await rpc('prompts/list');
      const byName = Object.fromEntries(result.prompts.map((p: any) => [p.name, p]));
      expect(Object.keys(byName)).to.deep.equal(['publish_static_dashboard', 'refreshable_dashboard', 'audit_my_dashboards']);
      expect(byName.publish_static_dashboard.arguments.map((a: any) => [a.name, a.required])).to.deep.equal([
        ['topic', true],
        ['slug', false],
      ]);
      expect(byName.refreshable_dashboard.arguments.map((a: any) => [a.name, a.required])).to.deep.equal([
        ['connection', false],
        ['grain', false],
      ]);
      expect(byName.audit_my_dashboards.arguments).to.deep.equal([]);
    });

    it('fills publish_static_dashboard with the topic and the slug', async () => {
      const { result } = await rpc('prompts/get', { name: 'publish_static_dashboard', arguments: { topic: 'Q3 revenue', slug: 'q3-revenue' } });
      expect(result.messages).to.have.length(1);
      expect(result.messages[0].role).to.equal('user');
      const text: string = result.messages[0].content.text;
      expect(text).to.contain('Q3 revenue');
      expect(text).to.contain('"q3-revenue"');
      expect(text).to.contain('publish_dashboard');
      expect(text).to.contain('dry_run');
    });

    it('fills refreshable_dashboard with its defaults and with given arguments', async () => {
      const defaults = (await rpc('prompts/get', { name: 'refreshable_dashboard' })).result.messages[0].content.text;
      expect(defaults).to.contain('"self"');
      expect(defaults).to.contain('introspect_schema');
      expect(defaults).to.contain("date_trunc('day'");
      const given = (
        await rpc('prompts/get', { name: 'refreshable_dashboard', arguments: { connection: '3f2b8c1e-0d4a-4e6b-9a7c-1b2c3d4e5f60', grain: 'week' } })
      ).result.messages[0].content.text;
      expect(given).to.contain('list_connections');
      expect(given).to.contain('3f2b8c1e-0d4a-4e6b-9a7c-1b2c3d4e5f60');
      expect(given).to.contain('0 6 * * 1');
    });

    it('fills audit_my_dashboards', async () => {
      const text = (await rpc('prompts/get', { name: 'audit_my_dashboards', arguments: {} })).result.messages[0].content.text;
      expect(text).to.contain('next_cursor');
      expect(text).to.contain('list_dashboards');
    });

    const bad: Array<[string, unknown, RegExp]> = [
      ['a missing required argument', { name: 'publish_static_dashboard', arguments: { slug: 'x' } }, /missing required argument "topic"/],
      ['an unknown prompt', { name: 'nope' }, /Unknown prompt: nope/],
      ['an unknown argument', { name: 'audit_my_dashboards', arguments: { verbose: 'yes' } }, /unknown argument "verbose"/],
      ['a non-string argument', { name: 'publish_static_dashboard', arguments: { topic: 5 } }, /argument "topic" must be a string/],
      ['an invalid slug', { name: 'publish_static_dashboard', arguments: { topic: 't', slug: 'Bad Slug' } }, /slug "Bad Slug" must match \[a-z0-9-\]/],
      ['an invalid connection', { name: 'refreshable_dashboard', arguments: { connection: 'prod' } }, /connection "prod" is not a valid connection/],
      ['an invalid grain', { name: 'refreshable_dashboard', arguments: { grain: 'fortnight' } }, /grain must be one of hour, day, week, month, quarter, year/],
    ];
    for (const [what, params, message] of bad) {
      it(`answers ${what} with -32602`, async () => {
        const reply = await rpc('prompts/get', params);
        expect(reply.error.code).to.equal(-32602);
        expect(reply.error.message).to.match(message);
      });
    }
  });

  describe('resources', () => {
    it('lists the single URI template', async () => {
      const { result } = await rpc('resources/templates/list');
      expect(result.resourceTemplates).to.have.length(1);
      expect(result.resourceTemplates[0]).to.include({ uriTemplate: 'service://{handle}/{slug}', mimeType: 'text/html' });
    });

    it('lists resources page by page with the cursor', async () => {
      const first = (await rpc('resources/list')).result;
      expect(first.resources.map((r: any) => r.uri)).to.deep.equal(['service://alice/alpha', 'service://alice/beta']);
      expect(first.nextCursor).to.equal('page-2');
      const second = (await rpc('resources/list', { cursor: first.nextCursor })).result;
      expect(second.resources.map((r: any) => r.uri)).to.deep.equal(['service://alice/gamma']);
      expect(second).not.to.have.property('nextCursor');
    });

    it('answers an invalid cursor with -32602', async () => {
      for (const cursor of ['garbage', 12]) {
        const reply = await rpc('resources/list', { cursor });
        expect(reply.error.code, String(cursor)).to.equal(-32602);
      }
    });

    it('reads one dashboard body by URI', async () => {
      const { result } = await rpc('resources/read', { uri: 'service://alice/beta' });
      expect(result).to.deep.equal({ contents: [{ uri: 'service://alice/beta', mimeType: 'text/html', text: '<h1>beta</h1>' }] });
    });

    for (const uri of ['https://alice/beta', 'service://alice', 'service://alice/beta/index.html', 'service://Alice/beta', 'service://alice/be_ta', '', 42]) {
      it(`answers the invalid URI ${JSON.stringify(uri)} with -32602`, async () => {
        const reply = await rpc('resources/read', { uri });
        expect(reply.error.code).to.equal(-32602);
      });
    }

    it('answers a missing resource with -32002', async () => {
      const reply = await rpc('resources/read', { uri: 'service://alice/nothing-here' });
      expect(reply.error).to.deep.equal({ code: -32002, message: 'Resource not found: service://alice/nothing-here', data: { uri: 'service://alice/nothing-here' } });
    });

    it('answers an infrastructure failure with -32000', async () => {
      for (const slug of ['broken', 'unavailable']) {
        const reply = await rpc('resources/read', { uri: `service://alice/${slug}` });
        expect(reply.error).to.deep.equal({ code: -32000, message: INTERNAL_ERROR_MESSAGE });
      }
    });
  });
});

describe('MCP endpoint settings', () => {
  it('rebrands the server name and the URI scheme with SERVICE_NAME', async () => {
    const server = await startMcpTestServer({ rateLimiter: new MemoryRateLimiter(clock), env: { SERVICE_NAME: 'acme' } });
    try {
      const init = await postMcp(server.url, { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18' } }, TOKENS.alice);
      expect(init.json().result.serverInfo).to.deep.equal({ name: 'acme', version: '0.6.0' });
      const templates = await postMcp(server.url, { jsonrpc: '2.0', id: 2, method: 'resources/templates/list' }, TOKENS.alice);
      expect(templates.json().result.resourceTemplates[0].uriTemplate).to.equal('acme://{handle}/{slug}');
      const read = await postMcp(server.url, { jsonrpc: '2.0', id: 3, method: 'resources/read', params: { uri: 'service://alice/alpha' } }, TOKENS.alice);
      expect(read.json().error.code).to.equal(-32602);
    } finally {
      await server.close();
    }
  });

  it('refuses a body over the size cap with 413', async () => {
    const server = await startMcpTestServer({ rateLimiter: new MemoryRateLimiter(clock), maxBodyBytes: 1024 });
    try {
      const res = await postMcp(server.url, { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(4096) } } }, TOKENS.alice);
      expect(res.status).to.equal(413);
      expect(res.json().error.message).to.match(/^413 payload too large: /);
      const small = await postMcp(server.url, { jsonrpc: '2.0', id: 2, method: 'ping' }, TOKENS.alice);
      expect(small.status).to.equal(200);
    } finally {
      await server.close();
    }
  });
});

describe('MCP endpoint: large bodies in lent buffers (body-buffers.ts)', () => {
  it("keeps a publish body's bytes its own until the call has answered, then lends its buffer to the next request", async () => {
    let openGate!: () => void;
    const gate = new Promise<void>((resolve) => (openGate = resolve));
    let firstWaiting!: () => void;
    const waiting = new Promise<void>((resolve) => (firstWaiting = resolve));
    const seen: Record<string, { memory: ArrayBufferLike; intact: boolean }> = {};
    // Stands in for publish_dashboard: parse-message.ts hands its body over as a view of the request's bytes.
    class BodyInput {
      @Text()
      path!: string;

      @Text()
      body!: string | Utf8Body;
    }
    const publish = stub({
      name: 'publish_dashboard',
      title: 'Publish',
      description: 'Checks its body is still what was sent once it is done waiting.',
      input: BodyInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      async call(_principal, args) {
        const { path, body } = args;
        if (!(body instanceof Utf8Body)) expect.fail('the body arrives as its bytes');
        if (path === 'a') {
          firstWaiting();
          await gate;
        }
        const fill = path.charCodeAt(0);
        seen[path] = { memory: body.bytes.buffer, intact: body.bytes.every((byte) => byte === fill) };
        return { content: [{ type: 'text', text: 'done' }] };
      },
    });
    const server = await startMcpTestServer({ rateLimiter: new MemoryRateLimiter(clock), extraTools: [publish] });
    try {
      const post = (path: string) =>
        postMcp(server.url, { jsonrpc: '2.0', id: path, method: 'tools/call', params: { name: 'publish_dashboard', arguments: { path, body: path.repeat(200_000) } } }, TOKENS.alice);
      const first = post('a');
      await waiting;
      // While the first call waits, a second large request must get a buffer of its own.
      expect((await post('b')).status).to.equal(200);
      openGate();
      expect((await first).status).to.equal(200);
      expect(seen.a!.intact).to.equal(true);
      expect(seen.b!.intact).to.equal(true);
      expect(seen.b!.memory).to.not.equal(seen.a!.memory);
      // Both answered: the next large request reads into one of their buffers.
      expect((await post('c')).status).to.equal(200);
      expect(seen.c!.intact).to.equal(true);
      expect([seen.a!.memory, seen.b!.memory]).to.include(seen.c!.memory);
    } finally {
      await server.close();
    }
  });
});
