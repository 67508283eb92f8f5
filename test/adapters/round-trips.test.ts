import { expect } from 'chai';
import pg from 'pg';
import { AccountStore } from '../../application/ports/account-store.js';
import type { Principal } from '../../application/ports/token-verifier.js';
import { PublishDashboard, type PublishCommand } from '../../application/dashboards/publish-dashboard.js';
import { ListDashboards, type ListQuery } from '../../application/dashboards/list-dashboards.js';
import { RenameDashboard } from '../../application/dashboards/rename-dashboard.js';
import { GetDashboard } from '../../application/dashboards/get-dashboard.js';
import { DashboardResources } from '../../application/dashboards/dashboard-resources.js';
import { GUESS_NEW_MAX_BYTES } from '../../adapters/postgres/publish-guesses.js';
import { ManageConnections } from '../../application/connections/manage-connections.js';
import type { SelfMetricsService } from '../../application/connections/self-metrics.js';
import { SelfMetrics } from '../../application/ports/warehouse.js';
import { isRefreshableSpec } from '../../domain/dashboard-spec.js';
import { buildContainer } from '../../shells/container.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { createTestWarehouse, type TestWarehouse } from '../support/warehouse.js';
import { salesSpec, seedSales } from '../support/refresh-fixtures.js';
import { testSettings } from '../support/settings.js';

type Query = (...args: unknown[]) => unknown;

/**
 * Round trips to PostgreSQL of the hot dashboard paths, counted at the driver: every `pg` client query is
 * one round trip (node-postgres sends the next only after the previous answered). A count, not a time.
 */
describe('round trips of publish and list_dashboards on PostgreSQL', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let warehouse: TestWarehouse | undefined;
  let app: Awaited<ReturnType<typeof buildContainer>>;
  let ada: Principal;
  const original = pg.Client.prototype.query as Query;
  let statements: string[] | null = null;
  let names: Array<string | undefined> = [];

  before(async () => {
    database = await createMigratedTestDatabase();
    app = await buildContainer(testSettings({ databaseUrl: database.url }));
    const user = await app.container.get<AccountStore>(AccountStore).createUser({ handle: 'ada-trips', email: 'ada-trips@example.com', passwordHash: null, plan: 'free' });
    ada = { userId: user.id, grantId: 'g', lock: { kind: 'personal' }, scope: 'dashboards' };
    (pg.Client.prototype as unknown as { query: Query }).query = function (this: unknown, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
      statements?.push(String(text ?? args[0]).replace(/\s+/g, ' ').slice(0, 400));
      if (statements) names.push((args[0] as { name?: string } | undefined)?.name);
      return original.apply(this, args);
    } as Query;
  });

  after(async () => {
    (pg.Client.prototype as unknown as { query: Query }).query = original;
    await app?.close();
    await warehouse?.drop();
    await database?.drop();
  });

  async function counted<T>(work: () => Promise<T>): Promise<{ result: T; statements: string[] }> {
    statements = [];
    names = [];
    try {
      const result = await work();
      return { result, statements };
    } finally {
      statements = null;
    }
  }

  const publish = (command: PublishCommand) => app.container.get(PublishDashboard).execute(ada, command);

  /** The publish statements among those counted: the read of the slug, and the write with the bytes. */
  const trips = (statements: string[]) =>
    statements.filter((s) => s.includes('dashpub_publish') || s.includes('AS row_version')).map((s) => (s.includes('dashpub_publish') ? 'write' : 'read'));

  it('publishes a new dashboard, and republishes a body onto it, in one round trip each when this process wrote the slug last', async () => {
    const created = await counted(() => publish({ path: 'trips', body: '<h1>one</h1>', tags: ['a'] }));
    expect(created.result.created).to.equal(true);
    expect(created.statements, created.statements.join('\n')).to.have.length.at.most(2);
    // A new slug and a small body: straight to the write, which checks under the lock that the slug is free.
    expect(trips(created.statements)).to.deep.equal(['write']);
    const again = await counted(() => publish({ path: 'trips/data.csv', body: 'a,b\n1,2' }));
    expect(again.result.created).to.equal(false);
    expect(Object.keys(again.result.published!.version.files).sort()).to.deep.equal(['data.csv', 'index.html']);
    expect(again.result.published!.version).to.include({ createdBy: ada.userId });
    expect(trips(again.statements)).to.deep.equal(['write']);
  });

  it('takes two round trips when another process changed the slug, or a big body goes to a slug it does not know, and decides on the slug as it is', async () => {
    // A second process on the same database: its writes are what this process's guesses cannot know.
    const other = await buildContainer(testSettings({ databaseUrl: database.url }), { refreshWorkers: false });
    try {
      const theirs = (command: PublishCommand) => other.container.get(PublishDashboard).execute(ada, command);
      await publish({ path: 'shared', body: '<h1>mine</h1>' });
      await theirs({ path: 'shared/theirs.csv', body: 'x\n1' });
      const stale = await counted(() => publish({ path: 'shared/mine.csv', body: 'y\n2' }));
      // The guessed write finds the row changed, writes nothing and answers the slug as it is now, with the
      // other process's version: the second write decides on that, without a read of its own.
      expect(trips(stale.statements)).to.deep.equal(['write', 'write']);
      expect(Object.keys(stale.result.published!.version.files).sort()).to.deep.equal(['index.html', 'mine.csv', 'theirs.csv']);

      await theirs({ path: 'made-there', body: '<p>there</p>' });
      const dry = await counted(() => publish({ path: 'made-there', body: '<p>here</p>', dryRun: true }));
      expect(dry.result).to.include({ dryRun: true, created: false });
      expect(trips(dry.statements)).to.deep.equal(['read']);

      await other.container.get(RenameDashboard).execute(ada, { slug: 'shared', newSlug: 'shared-renamed' });
      let refused: unknown;
      await publish({ path: 'shared', body: '<h1>again</h1>' }).catch((err: unknown) => (refused = err));
      expect(String((refused as Error | undefined)?.message)).to.contain('is an alias left by renaming a dashboard to "shared-renamed"');

      const big = await counted(() => publish({ path: 'big-one', body: 'x'.repeat(GUESS_NEW_MAX_BYTES + 1) }));
      expect(big.result.created).to.equal(true);
      expect(trips(big.statements)).to.deep.equal(['read', 'write']);
    } finally {
      await other.close();
    }
  });

  it('lists a page of many dashboards in a fixed number of round trips, whatever the page size', async () => {
    for (let i = 0; i < 12; i++) await publish({ path: `many-${String(i).padStart(2, '0')}`, body: `<p>${i}</p>`, tags: i % 4 === 0 ? ['rare'] : [] });
    const list = (query: ListQuery) => counted(() => app.container.get(ListDashboards).execute(ada, query));
    const page = await list({ limit: 10 });
    expect(page.result.dashboards).to.have.length(10);
    expect(page.statements, page.statements.join('\n')).to.have.length.at.most(2);
    // On a PostgreSQL server of its own the page goes out as a named prepared statement, planned once per connection.
    expect(names[page.statements.findIndex((s) => s.includes('FROM dashboards d'))]).to.match(/^dashpub_[0-9a-f]{24}$/);
    const tagged = await list({ tag: 'rare', limit: 2 });
    expect(tagged.result.dashboards.map((d) => d.dashboard.slug)).to.deep.equal(['many-00', 'many-04']);
    expect(tagged.statements).to.have.length.at.most(2);
    const next = await list({ tag: 'rare', limit: 2, cursor: tagged.result.nextCursor });
    expect(next.result.dashboards.map((d) => d.dashboard.slug)).to.deep.equal(['many-08']);
    expect(next.result.nextCursor).to.equal(null);
  });

  it('gathers the self connection\'s tables in a fixed number of round trips, whatever the dashboard count', async () => {
    for (let i = 0; i < 12; i++) await publish({ path: `self-${String(i).padStart(2, '0')}`, body: `<p>${i}</p>` });
    await publish({ path: 'self-00', body: '<p>again</p>' });
    const metrics = app.container.get<SelfMetricsService>(SelfMetrics);
    const gathered = await counted(() => metrics.tables({ kind: 'user', id: ada.userId }));
    const today = new Date().toISOString().slice(0, 10);
    const publishes = gathered.result.publishes.filter((p) => String(p.slug).startsWith('self-'));
    expect(publishes[0]).to.deep.include({ slug: 'self-00', count: 2 });
    expect(publishes.map((p) => p.slug)).to.deep.equal(Array.from({ length: 12 }, (_, i) => `self-${String(i).padStart(2, '0')}`));
    expect(publishes.every((p) => String(p.day) <= today)).to.equal(true);
    expect(gathered.result.dashboards.length).to.be.greaterThan(12);
    // One page of dashboards, one read of their publishes, one of their views, one of their runs.
    expect(gathered.statements, gathered.statements.join('\n')).to.have.length.at.most(4);
  });

  it('reads the current version once for get_dashboard with its body, and once for resources/read', async () => {
    await publish({ path: 'read-once', body: '<h1>once</h1>' });
    // Statements are kept to their first 400 characters: an entity read is known by its alias.
    const versionReads = (statements: string[]) => statements.filter((s) => /\bdashboard_versions\b|"DashboardVersionEntity"/.test(s));
    const got = await counted(() => app.container.get(GetDashboard).execute(ada, { slug: 'read-once', includeBody: true }));
    expect(got.result.body?.content).to.equal('<h1>once</h1>');
    expect(versionReads(got.statements), got.statements.join('\n')).to.have.length(1);
    // A spec dashboard lists its parameters from that same read, never a second one for the spec.
    const params = [{ id: 'n', type: 'number', default: 1 }];
    await publish({ path: 'read-once-spec', spec: { title: 'P', queries: { q: { sql: 'SELECT :n AS v' } }, params, panels: [{ id: 't', type: 'stat', query: 'q', value: 'v' }] } });
    const spec = await counted(() => app.container.get(GetDashboard).execute(ada, { slug: 'read-once-spec' }));
    expect(spec.result.params.map((p) => p.id)).to.deep.equal(['n']);
    expect(versionReads(spec.statements), spec.statements.join('\n')).to.have.length(1);
    const read = await counted(() => app.container.get(DashboardResources).read(ada, 'ada-trips', 'read-once'));
    expect(read.result.body.content).to.equal('<h1>once</h1>');
    expect(versionReads(read.statements), read.statements.join('\n')).to.have.length(1);
  });

  it('reads a rendered data.json once for summaries: its columns are kept by content hash', async () => {
    const params = [{ id: 'n', type: 'number', default: 1 }];
    await publish({ path: 'summary-once', spec: { title: 'S', queries: { q: { sql: 'SELECT :n AS v' } }, params, panels: [{ id: 't', type: 'stat', query: 'q', value: 'v' }] } });
    const fileReads = (statements: string[]) => statements.filter((s) => /\bdashboard_files\b|"FileEntity"/.test(s));
    const summarized = () => counted(() => app.container.get(GetDashboard).execute(ada, { slug: 'summary-once', summary: true }));
    const first = await summarized();
    expect(fileReads(first.statements), first.statements.join('\n')).to.have.length(1);
    const again = await summarized();
    expect(again.result.summary).to.deep.equal(first.result.summary);
    expect(JSON.stringify(again.result.summary)).to.include('"v"');
    expect(fileReads(again.statements), again.statements.join('\n')).to.have.length(0);
  });

  it('looks the warehouse connection of a spec publish up once, though the spec runs on it', async () => {
    warehouse = await createTestWarehouse();
    await seedSales(warehouse.adminUrl);
    const pro = await app.container.get<AccountStore>(AccountStore).createUser({ handle: 'pro-trips', email: 'pro-trips@example.com', passwordHash: null, plan: 'pro' });
    const principal: Principal = { userId: pro.id, grantId: 'g', lock: { kind: 'personal' }, scope: 'dashboards' };
    const connection = await app.container.get(ManageConnections).create({ ownerUserId: pro.id, workspaceId: null, label: 'Sales', url: warehouse.url });
    const published = await counted(() => app.container.get(PublishDashboard).execute(principal, { path: 'trips-spec', spec: salesSpec(), connection: connection.id }));
    expect(published.result.created).to.equal(true);
    expect(isRefreshableSpec(published.result.published!.version.spec)).to.equal(true);
    const lookups = published.statements.filter((s) => /\bFROM connections\b/.test(s));
    expect(lookups, published.statements.join('\n')).to.have.length(1);
  });
});
