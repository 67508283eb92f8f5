import { expect } from 'chai';
import pg from 'pg';
import { AccountStore } from '../../application/ports/account-store.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { request } from '../support/http.js';
import { freePort, spawnServer } from '../support/server.js';
import { testSettings, TEST_SECRET_KEY } from '../support/settings.js';
import { mintAccessToken } from '../support/tokens.js';

type Spawned = Awaited<ReturnType<typeof spawnServer>>;

interface Page {
  count: number;
  dashboards: Array<{ slug: string; name: string; tags: string[]; current_version_id: string }>;
}

/**
 * Each `dashpub serve` process remembers its list_dashboards answers
 * (docs/decisions/0046-list-answer-cache.md); a change made through any process, or straight in SQL, must still show
 * in the very next listing on every process. Two processes on one PostgreSQL: A makes the changes, B's answers are
 * remembered (its metrics count the hits).
 */
describe('e2e: list_dashboards answers remembered per process, and forgotten on every change (PostgreSQL)', function () {
  this.timeout(180_000);
  let database: TestDatabase;
  let a: Spawned;
  let b: Spawned;
  let admin: AppContainer;
  let sql: pg.Client;
  let token: string;
  let adminUrl: string;

  before(async () => {
    database = await createMigratedTestDatabase();
    const env = { DATABASE_URL: database.url, REDIS_URL: '', SECRET_KEY: TEST_SECRET_KEY };
    [a, b] = await Promise.all([spawnServer(env, 60_000), spawnServer({ ...env, ADMIN_PORT: String(await freePort()) }, 60_000)]);
    adminUrl = `http://127.0.0.1:${b.settings.adminPort}`;
    admin = await buildContainer(testSettings({ databaseUrl: database.url, baseUrl: a.settings.baseUrl }), { role: 'cli', refreshWorkers: false });
    const user = await admin.container.get<AccountStore>(AccountStore).createUser({ handle: 'lister', email: 'lister@example.com', passwordHash: null, plan: 'free' });
    token = (await mintAccessToken(admin.container, { userId: user.id })).access_token;
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
  });

  after(async () => {
    await sql?.end();
    await Promise.all([a, b].filter(Boolean).map((server) => server.close()));
    await admin?.close();
    await database?.drop();
  });

  /** The raw reply of one tools/call. */
  async function callRaw(server: Spawned, name: string, args: Record<string, unknown>, id: unknown = 1): Promise<string> {
    const res = await request({
      url: `${server.url}/mcp`,
      method: 'POST',
      host: server.hosts.api,
      headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: { jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } },
      timeoutMs: 60_000,
    });
    expect(res.status, res.text).to.equal(200);
    return res.text;
  }

  async function call(server: Spawned, name: string, args: Record<string, unknown>) {
    const result = JSON.parse(await callRaw(server, name, args)).result as { isError?: boolean; content: Array<{ text: string }>; structuredContent?: any };
    expect(result.isError, result.content[0]!.text).to.equal(undefined);
    return result;
  }

  const list = async (server: Spawned, args: Record<string, unknown> = {}): Promise<Page> => (await call(server, 'list_dashboards', args)).structuredContent as Page;

  async function hits(): Promise<number> {
    const metrics = await request({ url: `${adminUrl}/metrics` });
    const line = metrics.text.split('\n').find((l) => l.startsWith('dashpub_list_cache_total{outcome="hit"}'));
    return line ? Number(line.split(' ')[1]) : 0;
  }

  /** Lists on both processes until B answers from memory, so the change below has something to invalidate. */
  async function remembered(args: Record<string, unknown> = {}): Promise<void> {
    await list(a, args);
    await list(b, args);
    const before = await hits();
    await list(b, args);
    expect(await hits()).to.equal(before + 1);
  }

  /** Makes a change through A: the next listing shows it, on B (whose answer was remembered) and on A. */
  async function changeThroughA(change: () => Promise<unknown>, seen: (page: Page) => boolean, args: Record<string, unknown> = {}) {
    await remembered(args);
    expect(seen(await list(b, args)), 'B showed the change before it was made').to.equal(false);
    await change();
    expect(seen(await list(b, args)), 'B shows the change on the next call').to.equal(true);
    expect(seen(await list(a, args)), 'A shows its own change').to.equal(true);
  }

  const slugs = (page: Page) => page.dashboards.map((d) => d.slug);
  const publish = (slug: string, body: string, tags?: string[]) => call(a, 'publish_dashboard', { path: slug, body, ...(tags ? { tags } : {}) });

  it('answers a remembered listing with the bytes it was built with, for any request id', async () => {
    await publish('alpha', '<h1>Alpha</h1>', ['ops']);
    await publish('beta', '<h1>Beta</h1>');
    for (const args of [{}, { limit: 1 }, { tag: 'ops' }, { slug: 'beta' }]) {
      const built = await callRaw(b, 'list_dashboards', args, 7);
      const before = await hits();
      expect(await callRaw(b, 'list_dashboards', args, 7)).to.equal(built);
      expect(await callRaw(b, 'list_dashboards', args, 'a "quoted" id')).to.equal(built.replace('"id":7', '"id":"a \\"quoted\\" id"'));
      expect(await hits()).to.equal(before + 2);
    }
    // A refusal is never remembered: the same wrong slug asks again and gets the same text.
    for (let i = 0; i < 2; i++) expect(JSON.parse(await callRaw(b, 'list_dashboards', { slug: 'nope' })).result.isError).to.equal(true);
  });

  it('shows a publish made through A on the next call to either process', async () => {
    await changeThroughA(() => publish('gamma', '<h1>Gamma</h1>'), (page) => slugs(page).includes('gamma'));
  });

  it('shows changed tags, on the tag filter too', async () => {
    await changeThroughA(() => call(a, 'update_dashboard', { slug: 'beta', tags: ['ops'] }), (page) => slugs(page).includes('beta'), { tag: 'ops' });
    await changeThroughA(() => call(a, 'update_dashboard', { slug: 'beta', name: 'Beta renamed' }), (page) => page.dashboards.some((d) => d.name === 'Beta renamed'));
  });

  it('shows a rename and a delete', async () => {
    await changeThroughA(() => call(a, 'rename_dashboard', { slug: 'gamma', new_slug: 'delta' }), (page) => slugs(page).includes('delta') && !slugs(page).includes('gamma'));
    await changeThroughA(() => call(a, 'delete_dashboard', { slug: 'delta' }), (page) => !slugs(page).includes('delta'));
  });

  it('shows a republish and a restored version', async () => {
    const current = async () => (await list(a, { slug: 'alpha' })).dashboards[0]!.current_version_id;
    const first = await current();
    await changeThroughA(() => publish('alpha', '<h1>Alpha, second</h1>'), (page) => page.dashboards[0]!.current_version_id !== first, { slug: 'alpha' });
    const second = await current();
    const versions = (await call(a, 'list_dashboard_versions', { slug: 'alpha' })).structuredContent as { versions: Array<{ version_id: string }> };
    const earlier = versions.versions.find((v) => v.version_id === first)!;
    await changeThroughA(() => call(a, 'restore_dashboard_version', { slug: 'alpha', version_id: earlier.version_id }), (page) => page.dashboards[0]!.current_version_id !== second, { slug: 'alpha' });
  });

  it('shows a change made straight in SQL on the next call', async () => {
    await remembered();
    await sql.query(`UPDATE dashboards SET name = 'Set by hand' WHERE slug = 'alpha'`);
    expect((await list(b)).dashboards.find((d) => d.slug === 'alpha')!.name).to.equal('Set by hand');
    await remembered({ tag: 'ops' });
    await sql.query(`DELETE FROM dashboards WHERE slug = 'beta'`);
    expect(slugs(await list(b, { tag: 'ops' }))).to.deep.equal(['alpha']);
  });
});
