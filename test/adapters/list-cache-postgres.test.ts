import { expect } from 'chai';
import pg from 'pg';
import { INVALIDATION_APPLICATION_NAME, PgInvalidations } from '../../adapters/postgres/pg-invalidations.js';
import { AccountStore } from '../../application/ports/account-store.js';
import type { ToolResult } from '../../shells/koa/mcp/tool-registry.js';
import { ListAnswerCache } from '../../shells/koa/mcp/list-answer-cache.js';
import type { Target } from '../../domain/scope.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { request } from '../support/http.js';
import { startFullServer } from '../support/server.js';
import { mintAccessToken } from '../support/tokens.js';

const silent = { info: () => {}, warn: () => {} };

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

type Full = Awaited<ReturnType<typeof startFullServer>>;

/**
 * The list_dashboards cache on PostgreSQL (docs/decisions.md, "Cached list_dashboards answers"): what the
 * triggers announce, that the cache answers from memory only while its channel listens, that a read racing
 * a change is not remembered, and that a remembered answer is byte for byte what a server without the
 * cache writes.
 */
describe('adapters: list_dashboards cache and its change channel (PostgreSQL)', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let cached: Full;
  let uncached: Full;
  let sql: pg.Client;
  let token: string;
  let userId: string;

  before(async () => {
    database = await createTestDatabase();
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

  describe('with a channel of its own', () => {
    let listener: PgInvalidations;
    let cache: ListAnswerCache;
    let builds = 0;
    let owner: Target;
    const build = async (): Promise<ToolResult> => {
      builds++;
      const { rows } = await sql.query(`SELECT string_agg(slug || '=' || name, ',' ORDER BY slug) AS text FROM dashboards WHERE owner_id = $1`, [userId]);
      return { content: [{ type: 'text', text: String(rows[0].text) }] };
    };
    const text = async () => (await cache.answer(owner, {}, build)).content[0]!.text;

    beforeEach(async () => {
      owner = { kind: 'personal', userId, handle: 'bytes' };
      listener = new PgInvalidations(database.url, silent, { retryMs: 60_000 });
      cache = new ListAnswerCache(listener.dashboards, 1024 * 1024);
      await listener.start();
      builds = 0;
    });

    afterEach(() => listener.close());

    it('remembers an answer until a change to the owner is heard, whoever made it', async () => {
      expect(await text()).to.contain('one=');
      expect(await text()).not.to.contain('One by hand');
      expect(builds).to.equal(1);
      await sql.query(`UPDATE dashboards SET name = 'One by hand' WHERE owner_id = $1 AND slug = 'one'`, [userId]);
      let seen = '';
      for (let i = 0; i < 100 && !(seen = await text()).includes('One by hand'); i++) await new Promise((resolve) => setTimeout(resolve, 10));
      expect(seen).to.contain('one=One by hand');
      // Answers from memory until the change was heard, then built once.
      expect(builds).to.equal(2);
    });

    it('announces the owner for dashboards, current versions and tags, not for other versions or owners', async () => {
      const heard: string[] = [];
      listener.dashboards.subscribe({ changed: (id) => heard.push(id), reset: () => heard.push('reset') });
      const barrier = async () => {
        const mark = `00000000-0000-0000-0000-${String(heard.length).padStart(12, '0')}`;
        await sql.query(`SELECT pg_notify('dashpub_dashboard_change', $1)`, [`owner:${mark}`]);
        await until(() => heard.includes(mark), 'the barrier is heard');
        return heard.splice(0).filter((id) => id !== mark);
      };
      const one = (await sql.query(`SELECT id, current_version_id FROM dashboards WHERE owner_id = $1 AND slug = 'one'`, [userId])).rows[0] as { id: string; current_version_id: string };
      await sql.query(`UPDATE dashboard_versions SET name = 'kept' WHERE id = $1`, [one.current_version_id]);
      expect(await barrier()).to.deep.equal([userId]);
      // A version that is not current: no listing shows it.
      await sql.query(
        `INSERT INTO dashboard_versions (id, dashboard_id, seq, name, created_at, created_by, files, spec)
         SELECT gen_random_uuid(), dashboard_id, seq + 100, NULL, now(), created_by, files, spec FROM dashboard_versions WHERE id = $1`,
        [one.current_version_id],
      );
      await sql.query(`UPDATE dashboard_versions SET name = 'old' WHERE dashboard_id = $1 AND id <> $2`, [one.id, one.current_version_id]);
      expect(await barrier()).to.deep.equal([]);
      await sql.query(`DELETE FROM dashboard_tags WHERE owner_id = $1 AND tag = 'b'`, [userId]);
      expect(await barrier()).to.deep.equal([userId]);
      // One transaction touching the row many times says it once.
      await sql.query(`UPDATE dashboards SET chart = 'bar' WHERE owner_id = $1`, [userId]);
      expect(await barrier()).to.deep.equal([userId]);
      await sql.query(`UPDATE dashboards SET chart = chart WHERE owner_id = $1`, [userId]);
      expect(await barrier()).to.deep.equal([]);
    });

    it('builds every answer while the channel is down, so a change made meanwhile shows at once', async () => {
      await text();
      await text();
      expect(builds).to.equal(1);
      const ended = await sql.query(`SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 AND pid <> ALL($2)`, [
        INVALIDATION_APPLICATION_NAME,
        await serverListenerPids(),
      ]);
      expect(ended.rows.length).to.equal(1);
      await until(() => !listener.dashboards.live, 'the listener notices');
      expect(cache.size).to.equal(0);
      await sql.query(`UPDATE dashboards SET name = 'Two by hand' WHERE owner_id = $1 AND slug = 'two'`, [userId]);
      expect(await text()).to.contain('two=Two by hand');
      await text();
      expect(builds).to.equal(3);
      expect(cache.size).to.equal(0);
    });

    it('does not remember a read that was under way when a change was heard', async () => {
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      const slow = cache.answer(owner, {}, async () => {
        const result = await build();
        await gate;
        return result;
      });
      cache.changed(userId);
      release();
      await slow;
      expect(cache.size).to.equal(0);
      await text();
      await text();
      expect(builds).to.equal(2);
      // Another owner's change leaves this owner's answer alone.
      cache.changed('00000000-0000-0000-0000-000000000001');
      await text();
      expect(builds).to.equal(2);
    });
  });

  /** The backends of the two servers' own listeners, left alone by the cut above. */
  async function serverListenerPids(): Promise<number[]> {
    // The servers' listeners connected first: everything but the newest listener backend.
    const { rows } = await sql.query(`SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1 ORDER BY backend_start DESC OFFSET 1`, [
      INVALIDATION_APPLICATION_NAME,
    ]);
    return rows.map((row: { pid: number }) => row.pid);
  }
});
