import { expect } from 'chai';
import { AccountStore } from '../../../application/ports/account-store.js';
import { createMigratedTestDatabase, type TestDatabase } from '../../support/database.js';
import { request } from '../../support/http.js';
import { startFullServer } from '../../support/server.js';
import { mintAccessToken } from '../../support/tokens.js';
import { aUser } from '../../support/mothers.js';
import { answerTooLarge, batchTooLong, MAX_BATCH_MEMBERS } from '../../../shells/koa/mcp/endpoint.js';

type Server = Awaited<ReturnType<typeof startFullServer>>;

const MAX_ANSWER_BYTES = 3 * 1024 * 1024;

/** Batches of /mcp (issue 30, item 5): members per batch, bytes per answer, rate limits per member. Redis-backed limiter. */
describe('security: JSON-RPC batches on /mcp', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let server: Server;
  let token: string;

  before(async () => {
    database = await createMigratedTestDatabase();
    server = await startFullServer({ DATABASE_URL: database.url, REDIS_URL: 'redis://127.0.0.1:6379', MCP_MAX_ANSWER_BYTES: String(MAX_ANSWER_BYTES) });
    const user = await aUser(server.server.app.container.get<AccountStore>(AccountStore), { handle: 'batcher' });
    token = (await mintAccessToken(server.server.app.container, { userId: user.id, lock: { kind: 'personal' } })).access_token;
  });

  after(async () => {
    await server?.close();
    await database?.drop();
  });

  const post = (body: unknown) =>
    request({
      url: `${server.url}/mcp`,
      method: 'POST',
      host: server.hosts.api,
      headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body,
      timeoutMs: 60_000,
    });
  const call = (id: number, name: string, args: Record<string, unknown> = {}) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

  it(`refuses a batch of more than ${MAX_BATCH_MEMBERS} messages whole, with one error stating the limit, running none`, async () => {
    const before = await post(call(1, 'list_dashboards'));
    const res = await post(Array.from({ length: MAX_BATCH_MEMBERS + 1 }, (_, i) => call(i + 1, 'publish_dashboard', { path: `p${i}`, body: 'x' })));
    expect(res.status).to.equal(400);
    expect(res.json()).to.deep.equal({ jsonrpc: '2.0', id: null, error: { code: -32600, message: batchTooLong(MAX_BATCH_MEMBERS + 1) } });
    expect(batchTooLong(51)).to.include('at most 50');
    const after = await post(call(1, 'list_dashboards'));
    expect(after.json().result.structuredContent).to.deep.equal(before.json().result.structuredContent);
  });

  it(`answers a batch of exactly ${MAX_BATCH_MEMBERS}`, async () => {
    const res = await post(Array.from({ length: MAX_BATCH_MEMBERS }, (_, i) => call(i + 1, 'whoami')));
    expect(res.status).to.equal(200);
    expect(res.json()).to.have.length(MAX_BATCH_MEMBERS);
  });

  it('keeps one answer within MCP_MAX_ANSWER_BYTES: members past it get an error under their own id', async () => {
    const page = `<!doctype html><p>${'a'.repeat(1000 * 1000)}</p>`;
    const published = await post(call(1, 'publish_dashboard', { path: 'big', body: page }));
    expect(published.json().result.isError, published.text.slice(0, 300)).to.equal(undefined);
    const res = await post(Array.from({ length: 10 }, (_, i) => call(i + 1, 'get_dashboard', { slug: 'big', include_body: true })));
    expect(res.status).to.equal(200);
    expect(Buffer.byteLength(res.text)).to.be.below(MAX_ANSWER_BYTES + 64 * 1024);
    const replies = res.json() as Array<{ id: number; result?: { content: Array<{ text: string }> }; error?: { code: number; message: string } }>;
    expect(replies.map((reply) => reply.id)).to.deep.equal([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const full = replies.filter((reply) => reply.result);
    expect(full.length).to.be.within(1, 3);
    expect(JSON.stringify(full[0]!.result)).to.include('a'.repeat(1000));
    // The answered ones come first; every later one says why it is missing.
    for (const reply of replies.slice(full.length)) expect(reply.error).to.deep.equal({ code: -32600, message: answerTooLarge(MAX_ANSWER_BYTES) });
  });

  it('answers a lone request in full whatever its size', async () => {
    const res = await post(call(1, 'get_dashboard', { slug: 'big', include_body: true }));
    expect(res.json().result.isError, res.text.slice(0, 400)).to.equal(undefined);
  });

  it("counts every member against the tool's rate limit (trigger_refresh: 20 a minute)", async () => {
    const res = await post(Array.from({ length: 25 }, (_, i) => call(i + 1, 'trigger_refresh', { slug: 'nothing-here' })));
    const texts = (res.json() as Array<{ result: { content: Array<{ text: string }>; isError?: boolean } }>).map((reply) => reply.result.content[0]!.text);
    expect(texts.filter((text) => text.startsWith('Rate limit exceeded for trigger_refresh'))).to.have.length(5);
    const next = await post(call(99, 'trigger_refresh', { slug: 'nothing-here' }));
    expect(next.json().result.content[0].text).to.match(/^Rate limit exceeded for trigger_refresh/);
  });
});
