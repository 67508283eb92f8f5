import { expect } from 'chai';
import { asPublished } from '../support/hosting-fixtures.js';
import { DataSource } from 'typeorm';
import { AccountStore } from '../../application/ports/account-store.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { postMcp, request } from '../support/http.js';
import { LIFT_AT } from '../../shells/koa/mcp/parse-message.js';
import { startFullServer } from '../support/server.js';
import { mintAccessToken } from '../support/tokens.js';
import { aUser, aWorkspace } from '../support/mothers.js';
import { TOOL_NAMES } from '../../shells/koa/mcp/tools/index.js';

type Server = Awaited<ReturnType<typeof startFullServer>>;

/** Every dashboard and account tool over HTTP against the real server on PostgreSQL. */
describe('e2e: MCP dashboard tools (PostgreSQL)', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let server: Server;
  let ada: string; // personal-locked
  let adaTeam: string; // locked to the "team" workspace
  let bob: string; // legacy grant
  let adaHandle: string;
  let nextId = 1;

  async function rpc(token: string | null, method: string, params?: unknown) {
    const res = await request({
      url: `${server.url}/mcp`,
      method: 'POST',
      host: server.hosts.api,
      headers: { accept: 'application/json, text/event-stream', ...(token ? { authorization: `Bearer ${token}` } : {}) },
      body: { jsonrpc: '2.0', id: nextId++, method, ...(params === undefined ? {} : { params }) },
    });
    return { status: res.status, body: res.json(), headers: res.headers };
  }

  async function call(token: string, name: string, args: Record<string, unknown> = {}) {
    const res = await rpc(token, 'tools/call', { name, arguments: args });
    expect(res.status).to.equal(200);
    expect(res.body.error, JSON.stringify(res.body.error)).to.equal(undefined);
    const result = res.body.result as { content: Array<{ type: string; text: string }>; structuredContent?: any; isError?: boolean };
    expect(result.content).to.have.length(1);
    expect(result.content[0].type).to.equal('text');
    return { ...result, text: result.content[0].text };
  }

  const jsonBlock = (text: string) => {
    const match = /\nBEGIN_JSON\n([\s\S]*)\nEND_JSON$/.exec(text);
    expect(match, text).to.not.equal(null);
    return JSON.parse(match![1]);
  };

  async function refusalText(token: string, name: string, args: Record<string, unknown>) {
    const result = await call(token, name, args);
    expect(result.isError, result.text).to.equal(true);
    return result.text;
  }

  before(async () => {
    database = await createMigratedTestDatabase();
    server = await startFullServer({ DATABASE_URL: database.url });
    const accounts = server.server.app.container.get<AccountStore>(AccountStore);
    const a = await aUser(accounts, { handle: 'ada' });
    const b = await aUser(accounts, { handle: 'bob' });
    const team = await aWorkspace(accounts, { slug: 'team', name: 'The Team' });
    await aWorkspace(accounts, { slug: 'other', name: 'Other' });
    await accounts.addMember(team.id, a.id, 'admin');
    adaHandle = a.handle;
    const container = server.server.app.container;
    ada = (await mintAccessToken(container, { userId: a.id, lock: { kind: 'personal' } })).access_token;
    adaTeam = (await mintAccessToken(container, { userId: a.id, lock: { kind: 'workspace', workspaceId: team.id } })).access_token;
    // Consent never makes legacy grants any more; older ones still exist in storage, so make one there.
    const legacy = await mintAccessToken(container, { userId: b.id, lock: { kind: 'personal' } });
    await container.get(DataSource).query(`UPDATE oauth_grants SET lock_kind = 'legacy' WHERE id = $1`, [legacy.grantId]);
    bob = legacy.access_token;
  });

  after(async () => {
    await server?.close();
    await database?.drop();
  });

  it('lists the dashboard and account tools with schemas, titles and annotations', async () => {
    const res = await rpc(ada, 'tools/list');
    const tools = res.body.result.tools as Array<any>;
    const names = tools.map((t) => t.name);
    expect(names).to.deep.equal([...TOOL_NAMES]);
    for (const tool of tools) {
      expect(tool.title, tool.name).to.be.a('string');
      expect(tool.inputSchema.type).to.equal('object');
      expect(tool.annotations).to.have.keys(['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']);
    }
    const withOutput = tools.filter((t) => t.outputSchema).map((t) => t.name);
    expect(withOutput).to.include.members(['publish_dashboard', 'list_dashboards']);
    expect(withOutput).to.not.include('list_dashboard_versions');
  });

  it('publishes in body mode with the canonical URL, a JSON block and structuredContent', async () => {
    const r = await call(ada, 'publish_dashboard', { path: 'sales', body: '<h1>Sales</h1>', name: 'Sales', tags: ['q1'] });
    expect(r.isError).to.equal(undefined);
    const url = `http://${adaHandle}.${server.settings.dashboardDomain}/sales`;
    expect(r.text.split('\n')[0]).to.contain(url);
    expect(jsonBlock(r.text).url).to.equal(url);
    expect(r.structuredContent.url).to.equal(url);
    expect(r.structuredContent.dashboard.name).to.equal('Sales');
    const page = await request({ url: `${server.url}/sales`, host: server.hosts.dashboard(adaHandle) });
    expect(page.status).to.equal(200);
    // The host adds preview tags to a public body page without its own (decision 0231).
    expect(page.text).to.match(/^<meta property="og:type" content="website">[^\n]*\n<h1>Sales<\/h1>$/);
  });

  it('lists dashboards with structuredContent and a cursor', async () => {
    await call(ada, 'publish_dashboard', { path: 'zeta', body: 'z' });
    const first = await call(ada, 'list_dashboards', { limit: 1 });
    expect(first.structuredContent.count).to.equal(1);
    expect(first.structuredContent.next_cursor).to.be.a('string');
    const second = await call(ada, 'list_dashboards', { limit: 1, cursor: first.structuredContent.next_cursor });
    expect(second.structuredContent.dashboards[0].slug).to.equal('zeta');
    expect(jsonBlock(second.text)).to.deep.equal(second.structuredContent);
  });

  it('answers list_dashboard_versions with text only until there is a snapshot', async () => {
    const fresh = await call(ada, 'list_dashboard_versions', { slug: 'zeta' });
    expect(fresh.text).to.not.contain('BEGIN_JSON');
    expect(fresh.structuredContent).to.equal(undefined);
    const v2 = await call(ada, 'publish_dashboard', { path: 'zeta', body: 'z2' });
    const listed = await call(ada, 'list_dashboard_versions', { slug: 'zeta' });
    expect(listed.structuredContent.count).to.equal(1);
    const oldId = listed.structuredContent.versions[0].version_id;
    const named = await call(ada, 'update_dashboard_version', { slug: 'zeta', version_id: oldId, name: 'first cut' });
    expect(jsonBlock(named.text).version.name).to.equal('first cut');
    const zetaUrl = `http://${adaHandle}.${server.settings.dashboardDomain}/zeta`;
    expect(named.text).to.contain(`of ${zetaUrl} "first cut"`);
    const preview = await call(ada, 'get_dashboard_version', { slug: 'zeta', version_id: oldId });
    expect(jsonBlock(preview.text).body.content).to.equal('z');
    expect(preview.text).to.contain(`of ${zetaUrl}.`);
    const restored = await call(ada, 'restore_dashboard_version', { slug: 'zeta', version_id: oldId });
    expect(restored.text).to.contain(`http://${adaHandle}.${server.settings.dashboardDomain}/zeta`);
    const got = await call(ada, 'get_dashboard', { slug: 'zeta', include_body: true });
    expect(jsonBlock(got.text).body.content).to.equal('z');
    expect(jsonBlock(got.text).dashboard.current_version_id).to.not.equal(v2.structuredContent.version_id);
  });

  it('updates metadata, renames with a 301 alias, and deletes', async () => {
    const updated = await call(ada, 'update_dashboard', { slug: 'sales', tags: [], visibility: 'private' });
    expect(jsonBlock(updated.text).dashboard.tags).to.deep.equal([]);
    await call(ada, 'update_dashboard', { slug: 'sales', visibility: 'public' });
    const renamed = await call(ada, 'rename_dashboard', { slug: 'sales', new_slug: 'revenue' });
    expect(renamed.text).to.contain(`http://${adaHandle}.${server.settings.dashboardDomain}/revenue`);
    // The dashboards host reuses resolved slugs for up to a second (docs/decisions/0013-hosting-headers-and-caching.md).
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const old = await request({ url: `${server.url}/sales`, host: server.hosts.dashboard(adaHandle) });
    expect(old.status).to.equal(301);
    expect(old.headers.location).to.equal(`http://${adaHandle}.${server.settings.dashboardDomain}/revenue`);
    const deleted = await call(ada, 'delete_dashboard', { slug: 'revenue' });
    expect(deleted.text).to.contain('Deleted');
    expect(await refusalText(ada, 'get_dashboard', { slug: 'revenue' })).to.equal('No dashboard named "revenue" in your account');
  });

  it('refuses bad paths, slugs and metadata with the spec texts', async () => {
    expect(await refusalText(ada, 'publish_dashboard', { path: 'Bad', body: 'x' })).to.equal('slug "Bad" must match [a-z0-9-]');
    expect(await refusalText(ada, 'publish_dashboard', { path: 'a/b/c', body: 'x' })).to.equal('path "a/b/c": must be <slug>/<filename> (exactly two segments)');
    expect(await refusalText(ada, 'publish_dashboard', { path: 'ok/Bad.html', body: 'x' })).to.equal('filename "Bad.html" must match [a-z0-9._-]');
    expect(await refusalText(ada, 'publish_dashboard', { path: 'a'.repeat(65), body: 'x' })).to.equal('slug exceeds 64-char limit (got 65)');
    expect(await refusalText(ada, 'publish_dashboard', { path: 'ok', body: 'x', name: '  ' })).to.equal('name must be a non-empty string');
    expect(await refusalText(ada, 'publish_dashboard', { path: 'ok', body: 'x', chart: '' })).to.equal('chart must be a non-empty string');
    expect(await refusalText(ada, 'update_dashboard', { slug: 'zeta', name: 5 })).to.equal('name must be a non-empty string');
    expect(await refusalText(ada, 'publish_dashboard', { path: 'ok', body: 'x', chart: ['line'] })).to.equal('chart must be a non-empty string');
    expect(await refusalText(ada, 'publish_dashboard', { path: 'ok', body: 'x', tags: ['a', null] })).to.equal('tags[1] must be a string (got object)');
    expect(await refusalText(ada, 'publish_dashboard', { path: 'ok', body: 'x', visibility: 'team' })).to.contain('visibility');
    expect(await refusalText(ada, 'publish_dashboard', { path: 'ok', body: 'x', connection: 'warehouse' })).to.match(
      /^connection "warehouse" is not a valid connection; pass "self"/,
    );
    expect(await refusalText(ada, 'get_dashboard_version', { slug: 'zeta', version_id: 'v1' })).to.equal('version_id must be a valid uuid');
    const big = await refusalText(ada, 'publish_dashboard', { path: 'big', body: 'x'.repeat(5_242_881) });
    expect(big.startsWith('413 payload too large: ')).to.equal(true);
  });

  it('applies grant locks with the spec texts', async () => {
    const personal = await refusalText(ada, 'list_dashboards', { workspace: 'team' });
    expect(personal.startsWith('This connection is authorized for your personal account only and cannot act on a workspace.')).to.equal(true);
    const locked = await refusalText(adaTeam, 'list_dashboards', { workspace: 'other' });
    expect(locked.startsWith('This connection is authorized for the "team" workspace and cannot act on "other".')).to.equal(true);
    expect(await refusalText(bob, 'list_dashboards', { workspace: 'nope' })).to.equal('workspace "nope" not found');
    expect(await refusalText(bob, 'list_dashboards', { workspace: 'team' })).to.equal('not a member of workspace "team"');
    const team = await call(adaTeam, 'publish_dashboard', { path: 'plan', body: 'p' });
    expect(team.structuredContent.url).to.equal(`http://team.${server.settings.dashboardDomain}/plan`);
    expect(team.structuredContent.dashboard.visibility).to.equal('private');
    expect(await refusalText(adaTeam, 'get_dashboard', { slug: 'missing' })).to.equal('No dashboard named "missing" in your account');
    const who = await call(adaTeam, 'whoami');
    expect(jsonBlock(who.text).lock).to.include({ kind: 'workspace', workspace: 'team' });
    const spaces = await call(ada, 'list_workspaces');
    expect(jsonBlock(spaces.text).workspaces.map((w: any) => w.slug)).to.deep.equal(['team']);
    // A personal lock refuses any workspace argument, here too (the spec's scope rules).
    expect(await refusalText(ada, 'list_workspaces', { workspace: 'team' })).to.match(/^This connection is authorized for your personal account only/);
  });

  it('serves resources: list, templates and read, with -32602 and -32002', async () => {
    const list = await rpc(ada, 'resources/list');
    const uris = list.body.result.resources.map((r: any) => r.uri);
    expect(uris).to.include(`service://${adaHandle}/zeta`);
    const templates = await rpc(ada, 'resources/templates/list');
    expect(templates.body.result.resourceTemplates.map((t: any) => t.uriTemplate)).to.deep.equal(['service://{handle}/{slug}']);
    const read = await rpc(ada, 'resources/read', { uri: `service://${adaHandle}/zeta` });
    expect(read.body.result.contents[0].text).to.equal('z');
    const page = await request({ url: `${server.url}/zeta`, host: server.hosts.dashboard(adaHandle) });
    // The page as published, besides the preview line the host adds to a public body page (decision 0231).
    expect(asPublished(page.text)).to.equal(read.body.result.contents[0].text);
    expect((await rpc(ada, 'resources/read', { uri: 'http://nope' })).body.error.code).to.equal(-32602);
    expect((await rpc(ada, 'resources/read', { uri: `service://${adaHandle}/missing` })).body.error.code).to.equal(-32002);
    expect((await rpc(ada, 'resources/read', { uri: 'service://bob/zeta' })).body.error.code).to.equal(-32002);
    expect((await rpc(ada, 'resources/list', { cursor: '!!' })).body.error.code).to.equal(-32602);
    const teamList = await rpc(adaTeam, 'resources/list');
    expect(teamList.body.result.resources.map((r: any) => r.uri)).to.deep.equal(['service://team/plan']);
  });

  it('serves the three prompts', async () => {
    const list = await rpc(ada, 'prompts/list');
    expect(list.body.result.prompts.map((p: any) => p.name).sort()).to.deep.equal(['audit_my_dashboards', 'publish_static_dashboard', 'refreshable_dashboard']);
    const got = await rpc(ada, 'prompts/get', { name: 'publish_static_dashboard', arguments: { topic: 'weekly sales' } });
    expect(JSON.stringify(got.body.result.messages)).to.contain('weekly sales');
    expect((await rpc(ada, 'prompts/get', { name: 'publish_static_dashboard', arguments: {} })).body.error.code).to.equal(-32602);
  });

  it('refuses the 61st publish in a minute with the spec text', async () => {
    let refused = '';
    for (let i = 0; i < 61 && !refused; i++) {
      const r = await call(bob, 'publish_dashboard', { path: `burst-${i}`, body: 'x', dry_run: true });
      if (r.isError) refused = r.text;
    }
    expect(refused).to.equal('Rate limit exceeded for publish_dashboard: too many requests. Wait about 60 seconds and try again.');
  });

  it('publishes a large body byte for byte, as raw UTF-8 or escaped to ASCII, in either encoding (parse-message.ts)', async () => {
    const page = '<!doctype html><p>"quotes" \\ back\\slash\ttab / é ü 東京 🎉 \u007f</p>\n'.repeat(3000);
    // As a JavaScript client sends it (JSON.stringify: raw UTF-8) and as one that escapes everything past ASCII
    // (Python's json.dumps): either way the endpoint decodes the body in place, surrogate pairs included.
    const asAscii = (message: unknown) => JSON.stringify(message).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
    const post = (text: string) => postMcp(server.url, text, ada, { host: server.hosts.api, 'content-type': 'application/json' });
    const cases: Array<[string, Record<string, unknown>, (message: unknown) => string]> = [
      ['raw', { body: page }, JSON.stringify],
      ['escaped', { body: page }, asAscii],
      ['escaped-base64', { body: Buffer.from(page, 'utf8').toString('base64').replace(/.{76}/g, '$&\n'), encoding: 'base64' }, asAscii],
    ];
    for (const [path, args, encode] of cases) {
      const text = encode({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'publish_dashboard', arguments: { path, ...args } } });
      expect(Buffer.byteLength(text)).to.be.at.least(LIFT_AT);
      expect(/^[\x00-\x7f]*$/.test(text)).to.equal(encode === asAscii);
      const res = await post(text);
      expect(res.status).to.equal(200);
      expect(res.json().result.isError, res.text).to.equal(undefined);
      const hosted = await request({ url: `${server.url}/${path}`, host: server.hosts.dashboard(adaHandle) });
      expect(hosted.status).to.equal(200);
      expect(asPublished(hosted.text) === page).to.equal(true);
    }
    // Broken inside the large body: the same 400 Parse error as any invalid JSON.
    const broken = await post(asAscii({ jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'publish_dashboard', arguments: { path: 'broken', body: page } } }).replace('\\t', '\\x'));
    expect(broken.status).to.equal(400);
    expect(broken.json().error).to.deep.equal({ code: -32700, message: 'Parse error' });
  });

  it('stores every large body as sent when several are in flight and their buffers are lent again (body-buffers.ts)', async () => {
    // Pages of one size class, each its own bytes: a buffer lent again too early would store one page's bytes under another's path.
    const page = (n: number) => `<!doctype html><p>page ${n}</p>${`<td>${n} é 東京</td>`.repeat(20_000)}\n`;
    const publish = (n: number) =>
      postMcp(server.url, { jsonrpc: '2.0', id: nextId++, method: 'tools/call', params: { name: 'publish_dashboard', arguments: { path: `lent-${n}`, body: page(n) } } }, ada, {
        host: server.hosts.api,
      });
    const answers = [...(await Promise.all([1, 2, 3, 4].map(publish))), await publish(5), await publish(6)];
    for (const res of answers) {
      expect(res.status).to.equal(200);
      expect(res.json().result.isError, res.text).to.equal(undefined);
    }
    for (const n of [1, 2, 3, 4, 5, 6]) {
      const hosted = await request({ url: `${server.url}/lent-${n}`, host: server.hosts.dashboard(adaHandle) });
      expect(hosted.status).to.equal(200);
      expect(asPublished(hosted.text) === page(n), `lent-${n}`).to.equal(true);
    }
  });
});
