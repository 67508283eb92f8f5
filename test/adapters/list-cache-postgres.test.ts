import { expect } from 'chai';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { TypeormListingVersions } from '../../adapters/postgres/typeorm-listing-versions.js';
import { AccountStore } from '../../application/ports/account-store.js';
import type { ToolResult } from '../../shells/koa/mcp/tool-registry.js';
import { ListAnswerCache } from '../../shells/koa/mcp/list-answer-cache.js';
import type { Target } from '../../domain/scope.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { request } from '../support/http.js';
import { startFullServer } from '../support/server.js';
import { mintAccessToken } from '../support/tokens.js';

type Full = Awaited<ReturnType<typeof startFullServer>>;

/**
 * The list_dashboards cache on PostgreSQL (docs/decisions/0046-list-answer-cache.md): a
 * remembered answer is byte for byte what a server without the cache writes; the triggers move an owner's
 * listing version with everything a listing shows; the cache answers from memory only under the version it
 * built with, read before building; and the membership is checked on every call.
 */
describe('adapters: list_dashboards cache and its listing versions (PostgreSQL)', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let cached: Full;
  let uncached: Full;
  let sql: pg.Client;
  let token: string;
  let userId: string;

  before(async () => {
    database = await createMigratedTestDatabase();
    // The same URLs for both, so their answers can be compared byte for byte.
    const env = { DATABASE_URL: database.url, BASE_URL: 'http://api.test', APP_URL: 'http://app.test', DASHBOARD_DOMAIN: 'dash.test' };
    cached = await startFullServer(env);
    uncached = await startFullServer({ ...env, LIST_CACHE_MB: '0' });
    const accounts = cached.server.app.container.get<AccountStore>(AccountStore);
    const user = await accounts.createUser({ handle: 'bytes', email: 'bytes@example.com', passwordHash: null, plan: 'free' });
    userId = user.id;
    token = (await mintAccessToken(cached.server.app.container, { userId })).access_token;
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
  });

  after(async () => {
    await sql?.end();
    await cached?.close();
    await uncached?.close();
    await database?.drop();
  });

  async function rpc(server: Full, body: unknown): Promise<string> {
    const res = await request({
      url: `${server.url}/mcp`,
      method: 'POST',
      host: server.hosts.api,
      headers: { accept: 'application/json', authorization: `Bearer ${token}` },
      body,
    });
    expect(res.status).to.equal(200);
    return res.text;
  }
  const listing = (id: unknown, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'list_dashboards', arguments: args } });

  it('answers from memory the bytes a server without the cache writes, alone and in a batch', async () => {
    for (const [slug, tags] of [['one', ['a']], ['two', []], ['three', ['a', 'b']]] as const) {
      const publish = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'publish_dashboard', arguments: { path: slug, body: `<p>${slug} é \u2028</p>`, tags } } };
      expect(JSON.parse(await rpc(cached, publish)).result.isError).to.equal(undefined);
    }
    const cache = cached.server.app.container.get(ListAnswerCache);
    const first = JSON.parse(await rpc(uncached, listing(1, { limit: 1 }))).result.structuredContent.next_cursor as string;
    for (const args of [{}, { limit: 1 }, { limit: 1, cursor: first }, { tag: 'a' }, { slug: 'two' }, { limit: 2, tag: 'a' }]) {
      for (const id of [0, 'x', null, 1e21]) {
        const without = await rpc(uncached, listing(id, args));
        expect(await rpc(cached, listing(id, args)), JSON.stringify(args)).to.equal(without);
        expect(await rpc(cached, listing(id, args)), JSON.stringify(args)).to.equal(without);
      }
    }
    expect(cache.size).to.equal(6);
    const batch = [listing('a', {}), { jsonrpc: '2.0', id: 'b', method: 'ping' }, listing('c', { tag: 'a' })];
    expect(await rpc(cached, batch)).to.equal(await rpc(uncached, batch));
  });

  const owner = (): Target => ({ kind: 'personal', userId, handle: 'bytes' });
  const versionOf = async (id: string): Promise<string | null> =>
    ((await sql.query(`SELECT version::text AS v FROM dashboard_listing_versions WHERE owner_id = $1`, [id])).rows[0] as { v: string } | undefined)?.v ?? null;

  it('moves the owner\'s listing version with dashboards, current versions and tags, not with other versions or no-op updates', async () => {
    const moved = async (change: () => Promise<unknown>) => {
      const before = await versionOf(userId);
      await change();
      return (await versionOf(userId)) !== before;
    };
    const one = (await sql.query(`SELECT id, current_version_id FROM dashboards WHERE owner_id = $1 AND slug = 'one'`, [userId])).rows[0] as { id: string; current_version_id: string };
    expect(await versionOf(userId)).to.match(/^\d+$/);
    expect(await moved(() => sql.query(`UPDATE dashboards SET name = 'One' WHERE id = $1`, [one.id]))).to.equal(true);
    expect(await moved(() => sql.query(`UPDATE dashboards SET chart = chart WHERE owner_id = $1`, [userId]))).to.equal(false);
    expect(await moved(() => sql.query(`UPDATE dashboard_versions SET name = 'kept' WHERE id = $1`, [one.current_version_id]))).to.equal(true);
    // A version that is not current: no listing shows it.
    expect(
      await moved(() =>
        sql.query(
          `INSERT INTO dashboard_versions (id, dashboard_id, seq, name, created_at, created_by, files, spec)
           SELECT gen_random_uuid(), dashboard_id, seq + 100, NULL, now(), created_by, files, spec FROM dashboard_versions WHERE id = $1`,
          [one.current_version_id],
        ),
      ),
    ).to.equal(false);
    expect(await moved(() => sql.query(`UPDATE dashboard_versions SET name = 'old' WHERE dashboard_id = $1 AND id <> $2`, [one.id, one.current_version_id]))).to.equal(false);
    expect(await moved(() => sql.query(`DELETE FROM dashboard_tags WHERE owner_id = $1 AND tag = 'b'`, [userId]))).to.equal(true);
    // Another owner's change leaves this owner's number alone.
    const other = await cached.server.app.container.get<AccountStore>(AccountStore).createUser({ handle: 'other', email: 'other@example.com', passwordHash: null, plan: 'free' });
    expect(await versionOf(other.id)).to.equal(null);
    expect(await moved(() => sql.query(`UPDATE dashboards SET owner_id = $1 WHERE owner_id = $2 AND slug = 'one'`, [other.id, userId]))).to.equal(true);
    expect(await versionOf(other.id)).to.match(/^\d+$/);
    expect(await moved(() => sql.query(`UPDATE dashboards SET name = 'Elsewhere' WHERE owner_id = $1`, [other.id]))).to.equal(false);
    await sql.query(`UPDATE dashboards SET owner_id = $1 WHERE owner_id = $2`, [userId, other.id]);
  });

  describe('the cache on its own', () => {
    let cache: ListAnswerCache;
    let builds = 0;
    const build = async (): Promise<ToolResult> => {
      builds++;
      const { rows } = await sql.query(`SELECT string_agg(slug || '=' || name, ',' ORDER BY slug) AS text FROM dashboards WHERE owner_id = $1`, [userId]);
      return { content: [{ type: 'text', text: String(rows[0].text) }] };
    };
    const text = async () => (await cache.answer(owner(), {}, build)).content[0]!.text;

    beforeEach(() => {
      cache = new ListAnswerCache(new TypeormListingVersions(cached.server.app.container.get(DataSource), { preparedStatements: true }), 1024 * 1024);
      builds = 0;
    });

    it('answers from memory until anything changes the owner\'s listing, then shows the change at once', async () => {
      await text();
      expect(await text()).not.to.contain('By hand');
      expect(builds).to.equal(1);
      await sql.query(`UPDATE dashboards SET name = 'By hand' WHERE owner_id = $1 AND slug = 'two'`, [userId]);
      expect(await text()).to.contain('two=By hand');
      await text();
      expect(builds).to.equal(2);
    });

    it('never remembers under a version read after the listing: a change while building makes the answer stale at once', async () => {
      const slow = cache.answer(owner(), {}, async () => {
        const result = await build();
        await sql.query(`UPDATE dashboards SET name = 'Meanwhile' WHERE owner_id = $1 AND slug = 'two'`, [userId]);
        return result;
      });
      expect((await slow).content[0]!.text).not.to.contain('Meanwhile');
      expect(await text()).to.contain('two=Meanwhile');
      expect(builds).to.equal(2);
    });

    it('builds every time for an owner without a listing version, and when turned off', async () => {
      const nobody: Target = { kind: 'personal', userId: '00000000-0000-0000-0000-000000000001', handle: 'nobody' };
      await cache.answer(nobody, {}, build);
      await cache.answer(nobody, {}, build);
      expect(builds).to.equal(2);
      const off = new ListAnswerCache({ current: async () => '1' }, 0);
      await off.answer(owner(), {}, build);
      await off.answer(owner(), {}, build);
      expect(builds).to.equal(4);
      expect(cache.size + off.size).to.equal(0);
    });
  });

  it('checks the workspace membership on every call, remembered answer or not', async () => {
    const container = cached.server.app.container;
    const accounts = container.get<AccountStore>(AccountStore);
    const team = await accounts.createWorkspace({ slug: 'crew', name: 'Crew' });
    await accounts.addMember(team.id, userId, 'admin');
    const teamToken = (await mintAccessToken(container, { userId, lock: { kind: 'workspace', workspaceId: team.id } })).access_token;
    const teamRpc = async (body: unknown) =>
      (await request({ url: `${cached.url}/mcp`, method: 'POST', host: cached.hosts.api, headers: { accept: 'application/json', authorization: `Bearer ${teamToken}` }, body })).text;
    const publish = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'publish_dashboard', arguments: { path: 'crew-board', body: '<p>crew</p>' } } };
    expect(JSON.parse(await teamRpc(publish)).result.isError).to.equal(undefined);
    const remembered = await teamRpc(listing(1, {}));
    expect(await teamRpc(listing(1, {}))).to.equal(remembered);
    expect(remembered).to.contain('crew-board');
    await sql.query(`DELETE FROM memberships WHERE workspace_id = $1 AND user_id = $2`, [team.id, userId]);
    const refused = JSON.parse(await teamRpc(listing(1, {}))).result as { isError: boolean; content: Array<{ text: string }> };
    expect([refused.isError, refused.content[0]!.text]).to.deep.equal([true, 'not a member of workspace "crew"']);
  });
});
