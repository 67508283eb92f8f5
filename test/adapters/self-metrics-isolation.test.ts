import { expect } from 'chai';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { testSettings } from '../support/settings.js';
import { json, makeUser, registry, text, uniq } from '../support/refresh-fixtures.js';
import { DashboardStore } from '../../application/ports/dashboard-store.js';
import { RefreshStateStore } from '../../application/ports/refresh-state-store.js';
import { SelfMetrics } from '../../application/ports/warehouse.js';
import type { SelfMetrics as SelfMetricsPort } from '../../application/ports/warehouse.js';
import { ViewCounter } from '../../application/ports/view-counter.js';
import type { ViewCounter as ViewCounterPort } from '../../application/ports/view-counter.js';
import type { ToolRegistry } from '../../shells/koa/mcp/tool-registry.js';
import type { Principal } from '../../application/ports/token-verifier.js';

/**
 * The `self` connection must only ever show the caller's own rows, whatever SQL is sent. Bob's slug is
 * a marker string: it must never appear in anything Ada's queries return or in any error they raise.
 */
describe('self metrics: tenant isolation against adversarial SQL', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let app: AppContainer;
  let tools: ToolRegistry;
  let ada: Principal;
  let adaId: string;
  const adaSlug = `ada-${uniq('m').replace(/[^a-z0-9-]/g, '')}`;
  const bobSlug = `bob-marker-${uniq('m').replace(/[^a-z0-9-]/g, '')}`;

  before(async () => {
    database = await createMigratedTestDatabase();
    app = await buildContainer(testSettings({ databaseUrl: database.url, secretKey: 'k' }), { refreshWorkers: false });
    tools = registry(app.container);
    const a = await makeUser(app.container, 'free');
    const b = await makeUser(app.container, 'free');
    ada = a.principal;
    adaId = a.user.id;
    for (const [principal, slug] of [
      [a.principal, adaSlug],
      [b.principal, bobSlug],
    ] as const) {
      const r = await tools.call(principal, 'publish_dashboard', { path: slug, body: `<p>${slug}</p>`, name: `${slug} name` });
      expect(r.isError, text(r)).to.equal(undefined);
      await tools.call(principal, 'publish_dashboard', { path: slug, body: `<p>${slug} v2</p>` });
      const dashboard = (await app.container.get<DashboardStore>(DashboardStore).findDashboard({ kind: 'user', id: principal.userId }, slug))!;
      await app.container.get<ViewCounterPort>(ViewCounter).add([{ dashboardId: dashboard.id, day: '2024-05-01', views: slug === adaSlug ? 7 : 4_242_421 }]);
      await app.container.get<RefreshStateStore>(RefreshStateStore).recordRun({
        id: crypto.randomUUID(),
        dashboardId: dashboard.id,
        trigger: 'manual',
        startedAt: new Date('2024-05-01T10:00:00Z'),
        durationMs: 12,
        outcome: 'success',
        rows: slug === adaSlug ? 3 : 737_373,
        error: null,
      });
    }
  });

  after(async () => {
    await app?.close();
    await database?.drop();
  });

  const self = () => app.container.get<SelfMetricsPort>(SelfMetrics).open({ kind: 'user', id: adaId });

  /** Runs as Ada; returns everything the caller could see (rows or the error text). */
  async function probe(sql: string): Promise<string> {
    try {
      return JSON.stringify(await self().run(sql));
    } catch (err) {
      return `error: ${(err as Error).message}`;
    }
  }

  it('shows the caller\'s own dashboards, views, publishes and refresh runs', async () => {
    const r = await self().run('SELECT d.slug, d.name, v.views, p.count AS publishes, r.rows FROM dashboards d JOIN daily_views v USING (slug) JOIN publishes p USING (slug) JOIN refresh_runs r USING (slug)');
    expect(r.rows).to.deep.equal([{ slug: adaSlug, name: `${adaSlug} name`, views: 7, publishes: 2, rows: 3 }]);
    const counts = await self().run('SELECT (SELECT count(*) FROM dashboards) AS d, (SELECT sum(views) FROM daily_views) AS v, (SELECT count(*) FROM refresh_runs) AS r');
    expect(counts.rows).to.deep.equal([{ d: 1, v: 7, r: 1 }]);
  });

  const attacks: Array<[string, string]> = [
    ['set_config on a would-be scope setting', "SELECT set_config('app.owner_id', 'anyone', false) AS s, * FROM dashboards"],
    ['current_setting', "SELECT current_setting('app.owner_id', true) AS s, current_user, session_user, * FROM dashboards"],
    ['pg_catalog: every relation', 'SELECT c.relname, n.nspname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace'],
    ['pg_catalog: statistics', 'SELECT * FROM pg_catalog.pg_stats'],
    ['pg_stat_activity', 'SELECT query FROM pg_stat_activity'],
    ['information_schema tables', 'SELECT table_schema, table_name FROM information_schema.tables'],
    ['the service\'s own tables', 'SELECT * FROM public.dashboards_versions'],
    ['other schemas', 'SELECT * FROM pgboss.job'],
    ['the service users table', 'SELECT * FROM users'],
    ['casts through regclass', "SELECT 'dashboards'::regclass::oid, 'refresh_runs'::regclass::text, slug::text FROM dashboards"],
    ['dblink to the service database', "SELECT * FROM dblink('dbname=postgres', 'SELECT slug FROM dashboards') AS t(slug text)"],
    ['files of the data directory', "SELECT name, pg_read_file('global/pg_control') IS NOT NULL FROM pg_ls_dir('.') AS name"],
    ['UNION over every table', 'SELECT slug FROM dashboards UNION ALL SELECT slug FROM daily_views UNION ALL SELECT slug FROM publishes UNION ALL SELECT slug FROM refresh_runs'],
    ['a recursive CTE', 'WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT r.n, d.slug FROM r, dashboards d'],
  ];

  for (const [name, sql] of attacks) {
    it(`never shows another account's rows: ${name}`, async () => {
      const seen = await probe(sql);
      expect(seen).not.to.include(bobSlug);
      expect(seen).not.to.include('4242421');
      expect(seen).not.to.include('737373');
    });
  }

  it('has no other account\'s bytes anywhere in its database, the write-ahead log included', async () => {
    const search = (marker: string) =>
      self().run(
        `SELECT count(*) AS hits FROM pg_ls_dir('pg_wal') AS f
          WHERE f ~ '^[0-9A-F]{24}$' AND position(convert_to('${marker}', 'UTF8') in pg_read_binary_file('pg_wal/' || f)) > 0`,
      );
    // The probe works: Ada's own rows are in the log...
    expect((await search(adaSlug)).rows).to.deep.equal([{ hits: 1 }]);
    // ...and Bob's never were.
    expect((await search(bobSlug)).rows).to.deep.equal([{ hits: 0 }]);
  });

  it('refuses writes and session changes', async () => {
    expect(await probe('SELECT pg_advisory_lock(1)')).not.to.include(bobSlug);
    expect(await probe("UPDATE dashboards SET name = 'x'")).to.include('read-only SELECT');
    expect(await probe("SELECT * FROM dashboards; SELECT * FROM users")).to.include('exactly one statement');
  });

  it('is reachable through validate_cube_sql and introspect_schema with connection "self"', async () => {
    const v = await tools.call(ada, 'validate_cube_sql', { sql: 'SELECT slug, views FROM daily_views' });
    expect(v.isError, text(v)).to.equal(undefined);
    expect(v.structuredContent!.sample_rows).to.deep.equal([{ slug: adaSlug, views: 7 }]);
    const i = await tools.call(ada, 'introspect_schema', { connection: 'self' });
    expect((json(i).tables as Array<{ name: string }>).map((t) => t.name)).to.deep.equal(['dashboards', 'daily_views', 'publishes', 'refresh_runs']);
  });

  it('prepares a spec\'s queries on "self" during a dry run: a missing column is refused, nothing is written', async () => {
    const spec = (sql: string) => ({ title: 'Views', queries: { views: { sql } }, panels: [{ id: 'v', type: 'table', query: 'views' }] });
    const refused = await tools.call(ada, 'publish_dashboard', { path: 'dry-views', spec: spec('SELECT slug, no_such_views FROM daily_views'), dry_run: true });
    expect(refused.isError, text(refused)).to.equal(true);
    expect(text(refused)).to.include('query "views"').and.include('no_such_views');
    const fine = await tools.call(ada, 'publish_dashboard', { path: 'dry-views', spec: spec('SELECT slug, views FROM daily_views'), dry_run: true });
    expect(fine.isError, text(fine)).to.equal(undefined);
    expect(await app.container.get<DashboardStore>(DashboardStore).findDashboard({ kind: 'user', id: adaId }, 'dry-views')).to.equal(null);
  });

  it('cancels a query that runs too long and keeps serving afterwards', async () => {
    const started = Date.now();
    try {
      await self().run('SELECT pg_sleep(60)', { timeoutMs: 500 });
      expect.fail('ran');
    } catch (err) {
      expect((err as Error).message).to.include('query cancelled');
    }
    expect(Date.now() - started).to.be.lessThan(10_000);
    const r = await self().run('SELECT count(*) AS n FROM dashboards');
    expect(r.rows).to.deep.equal([{ n: 1 }]);
  });
});
