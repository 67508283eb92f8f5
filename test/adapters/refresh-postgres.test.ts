import { expect } from 'chai';
import pg from 'pg';
import { startBackgroundWork } from '../../shells/background-work.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { createTestDatabase, createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { createTestWarehouse, type TestWarehouse } from '../support/warehouse.js';
import { testSettings } from '../support/settings.js';
import { json, makeUser, registry, salesSpec, seedSales, sql, text, uniq } from '../support/refresh-fixtures.js';
import { ManageConnections } from '../../application/connections/manage-connections.js';
import { RefreshDashboard } from '../../application/refresh/refresh-dashboard.js';
import { RefreshScheduler } from '../../application/refresh/refresh-scheduler.js';
import { RefreshOptions } from '../../application/refresh/refresh-options.js';
import { LiveFiles } from '../../application/refresh/live-files.js';
import { DashboardStore } from '../../application/ports/dashboard-store.js';
import { RefreshStateStore } from '../../application/ports/refresh-state-store.js';
import { ConnectionStore } from '../../application/ports/connection-store.js';
import { AccountStore } from '../../application/ports/account-store.js';
import type { RefreshJob } from '../../application/ports/refresh-queue.js';
import { ownerOf } from '../../domain/scope.js';
import { PgBossRefreshQueue } from '../../adapters/jobs/pg-boss-refresh-queue.js';
import type { ToolRegistry } from '../../shells/koa/mcp/tool-registry.js';
import { aPrincipal, aWorkspace } from '../support/mothers.js';

const SECRET = 'refresh-test-secret';

describe('connections and refresh on PostgreSQL', function () {
  this.timeout(90_000);
  let service: TestDatabase;
  let warehouse: TestWarehouse;
  let app: AppContainer;
  let tools: ToolRegistry;

  before(async () => {
    service = await createMigratedTestDatabase();
    warehouse = await createTestWarehouse();
    await seedSales(warehouse.adminUrl);
    app = await buildContainer(testSettings({ databaseUrl: service.url, secretKey: SECRET }), { refreshWorkers: false });
    tools = registry(app.container);
  });

  after(async () => {
    await app?.close();
    await warehouse?.drop();
    await service?.drop();
  });

  const connections = () => app.container.get(ManageConnections);

  async function proWithConnection() {
    const { user, principal } = await makeUser(app.container, 'pro');
    const connection = await connections().create({ ownerUserId: user.id, workspaceId: null, label: 'Sales DB', url: warehouse.url });
    return { user, principal, connection };
  }

  async function liveBytes(dashboardId: string, filename: string): Promise<string | null> {
    const store = app.container.get<DashboardStore>(DashboardStore);
    const dashboard = await store.findDashboardById(dashboardId);
    const files = await app.container.get(LiveFiles).liveFilesFor(dashboard!);
    if (!files) return null;
    return Buffer.from((await store.getFile(files[filename]!.sha256))!).toString('utf8');
  }

  describe('connections', () => {
    it('needs the pro plan to add a warehouse connection', async () => {
      const { user } = await makeUser(app.container, 'free');
      try {
        await connections().create({ ownerUserId: user.id, workspaceId: null, label: 'x', url: warehouse.url });
        expect.fail('created');
      } catch (err) {
        expect((err as { code: string }).code).to.equal('plan_required');
      }
    });

    it('becomes active after a successful test and keeps the URL encrypted at rest', async () => {
      const { principal, connection } = await proWithConnection();
      expect(connection.status).to.equal('active');
      expect(connection.lastTestedAt).to.be.instanceOf(Date);
      const client = new pg.Client({ connectionString: service.url });
      await client.connect();
      const { rows } = await client.query('SELECT url_sealed FROM connections WHERE id = $1', [connection.id]);
      await client.end();
      expect(rows[0].url_sealed).to.match(/^v1:/);
      expect(rows[0].url_sealed).not.to.include('postgres');

      const listed = await tools.call(principal, 'list_connections', {});
      expect(listed.structuredContent).to.deep.include({ count: 1 });
      expect(json(listed).connections[0]).to.include({ id: connection.id, label: 'Sales DB', status: 'active' });
      expect(text(listed)).not.to.include(warehouse.url);
    });

    it('says so when there are no connections', async () => {
      const { principal } = await makeUser(app.container, 'pro');
      const r = await tools.call(principal, 'list_connections', {});
      expect(r).to.deep.equal({ content: [{ type: 'text', text: 'You have no warehouse connections.' }], structuredContent: { count: 0, connections: [] } });
    });

    it('marks an unreachable warehouse failing, and refuses to use it with the spec text', async () => {
      const { user, principal } = await makeUser(app.container, 'pro');
      const broken = await connections().create({
        ownerUserId: user.id,
        workspaceId: null,
        label: 'Broken',
        url: 'postgres://postgres@127.0.0.1:1/nowhere_test',
      });
      expect(broken.status).to.equal('failing');
      expect(broken.lastError).to.include('could not connect');
      const r = await tools.call(principal, 'introspect_schema', { connection: broken.id });
      expect(r.isError).to.equal(true);
      expect(text(r)).to.equal(
        'Connection "Broken" is not active (status: failing). Test it in the web app and retry once it is active.',
      );
    });

    it('gives one identical sentence for an unknown id and for someone else\'s connection', async () => {
      const { connection } = await proWithConnection();
      const { principal: stranger } = await makeUser(app.container, 'pro');
      const theirs = await tools.call(stranger, 'validate_cube_sql', { sql: 'SELECT 1', connection: connection.id });
      const unknownId = '00000000-0000-4000-8000-000000000000';
      const unknown = await tools.call(stranger, 'validate_cube_sql', { sql: 'SELECT 1', connection: unknownId });
      expect(theirs.isError).to.equal(true);
      expect(text(theirs)).to.equal(text(unknown).replace(unknownId, connection.id));
      expect(text(theirs)).to.match(/^Connection "[0-9a-f-]+" was not found among your connections\./);
    });

    it('introspects tables, columns and types', async () => {
      const { principal, connection } = await proWithConnection();
      const r = await tools.call(principal, 'introspect_schema', { connection: connection.id });
      const sales = (r.structuredContent!.tables as any[]).find((t) => t.name === 'sales');
      expect(sales.schema).to.equal('public');
      expect(sales.columns.map((c: any) => [c.name, c.type])).to.deep.equal([
        ['day', 'date'],
        ['region', 'text'],
        ['amount', 'numeric'],
      ]);
      expect((r.structuredContent!.tables as any[]).some((t) => t.schema === 'pg_catalog' || t.schema === 'information_schema')).to.equal(false);
    });

    it('validates SQL: columns and at most five sample rows, syntax errors with their position, writes refused', async () => {
      const { principal, connection } = await proWithConnection();
      const ok = await tools.call(principal, 'validate_cube_sql', { sql: 'SELECT region, amount FROM sales ORDER BY amount', connection: connection.id });
      expect(ok.isError).to.equal(undefined);
      expect(ok.structuredContent!.columns).to.deep.equal([
        { name: 'region', type: 'text' },
        { name: 'amount', type: 'numeric' },
      ]);
      expect(ok.structuredContent!.sample_rows).to.have.length(5);
      expect((ok.structuredContent!.sample_rows as any[])[0]).to.deep.equal({ region: 'south', amount: 70 });

      const syntax = await tools.call(principal, 'validate_cube_sql', { sql: 'SELECT FROM WHERE', connection: connection.id });
      expect(syntax.isError).to.equal(true);
      expect(text(syntax)).to.match(/position \d+/);

      const write = await tools.call(principal, 'validate_cube_sql', { sql: 'DELETE FROM sales', connection: connection.id });
      expect(text(write)).to.include('read-only SELECT');

      const missing = await tools.call(principal, 'validate_cube_sql', { sql: 'SELECT * FROM nope', connection: connection.id });
      expect(text(missing)).to.include('relation "nope" does not exist');

      const workspaceArg = await tools.call(principal, 'validate_cube_sql', { sql: 'SELECT 1', workspace: 'x' });
      expect(workspaceArg.isError).to.equal(true);
    });

    it('runs warehouse SQL read-only even when a function tries to write', async () => {
      const { user } = await proWithConnection();
      const target = app.container.get(ManageConnections);
      expect(target).to.be.an('object');
      // nextval writes a sequence: a read-only transaction refuses it.
      // The role may write it, so only the transaction stands in the way.
      await sql(warehouse.adminUrl, `CREATE SEQUENCE IF NOT EXISTS s; GRANT USAGE, UPDATE ON SEQUENCE s TO "${warehouse.role}"`);
      const principal = aPrincipal(user.id, { grantId: 'g' });
      const own = (await connections().list({ kind: 'personal', userId: user.id }))[0]!;
      const r = await tools.call(principal, 'validate_cube_sql', { sql: "SELECT nextval('s')", connection: own.id });
      expect(r.isError).to.equal(true);
      expect(text(r)).to.include('read-only transaction');
    });
  });

  describe('spec publish and refresh', () => {
    it('publishes a refreshable dashboard, refreshes it on demand, keeps the last good page on failure', async () => {
      const { principal, connection } = await proWithConnection();
      const table = `sales_${uniq('t').replace(/-/g, '_')}`;
      await sql(warehouse.adminUrl, `CREATE TABLE ${table} AS SELECT * FROM sales`);
      const spec = salesSpec(`SELECT day::text AS day, sum(amount) AS total FROM ${table} GROUP BY day ORDER BY day`);

      // A dry run prepares each query on the connection: what the real publish would refuse, it refuses now.
      for (const [broken, names] of [['SELECT * FROM not_there', 'not_there'], [`SELECT day::text AS day, sum(no_such_amount) AS total FROM ${table} GROUP BY day`, 'no_such_amount']]) {
        const refused = await tools.call(principal, 'publish_dashboard', { path: 'sales', spec: salesSpec(broken!), connection: connection.id, dry_run: true });
        expect(refused.isError, text(refused)).to.equal(true);
        expect(text(refused)).to.include(names).and.match(/query "\w+"/);
      }
      const dry = await tools.call(principal, 'publish_dashboard', { path: 'sales', spec, connection: connection.id, dry_run: true });
      expect(dry.isError, text(dry)).to.equal(undefined);
      expect(await app.container.get<DashboardStore>(DashboardStore).findDashboard({ kind: 'user', id: principal.userId }, 'sales')).to.equal(null);

      const published = await tools.call(principal, 'publish_dashboard', { path: 'sales', spec, connection: connection.id });
      expect(published.isError, text(published)).to.equal(undefined);
      const store = app.container.get<DashboardStore>(DashboardStore);
      const dashboard = (await store.findDashboard({ kind: 'user', id: principal.userId }, 'sales'))!;
      const version = (await store.getVersion(dashboard.id, dashboard.currentVersionId))!;
      const firstData = Buffer.from((await store.getFile(version.files['data.json']!.sha256))!).toString();
      expect(firstData, firstData).to.include('180.5');

      // No refresh yet: nothing live, the version's files are served.
      expect(await liveBytes(dashboard.id, 'index.html')).to.equal(null);

      await sql(warehouse.adminUrl, `UPDATE ${table} SET amount = amount * 10 WHERE day = '2024-01-01'`);
      const ok = await app.container.get(RefreshDashboard).run(dashboard.id, 'manual');
      expect(ok).to.include({ outcome: 'success', rows: 3, error: null });
      const liveData = (await liveBytes(dashboard.id, 'data.json'))!;
      expect(liveData, liveData).to.include('1805');
      const liveHtml = (await liveBytes(dashboard.id, 'index.html'))!;
      const versionHtml = Buffer.from((await store.getFile(version.files['index.html']!.sha256))!).toString();
      expect(liveHtml).not.to.equal(versionHtml);
      expect(liveHtml).to.include('1,805');
      // A refresh makes no version.
      expect(await store.listVersions(dashboard.id)).to.have.length(1);

      await sql(warehouse.adminUrl, `DROP TABLE ${table}`);
      const failed = await app.container.get(RefreshDashboard).run(dashboard.id, 'manual');
      expect(failed!.outcome).to.equal('failure');
      expect(failed!.error).to.include(`relation "${table}" does not exist`);
      expect(await liveBytes(dashboard.id, 'index.html')).to.equal(liveHtml);

      const status = await tools.call(principal, 'get_refresh_status', { slug: 'sales' });
      expect(json(status).last_run).to.include({ outcome: 'failure', trigger: 'manual' });
      expect(json(status).last_run.error).to.include('does not exist');
      expect(text(status)).to.include('error: query "daily"');
    });

    it('republishes a spec on the dashboard\'s own connection when the call names none', async () => {
      const { principal, connection } = await proWithConnection();
      expect((await tools.call(principal, 'publish_dashboard', { path: 'kept', spec: salesSpec(), connection: connection.id })).isError).to.equal(undefined);
      const again = await tools.call(principal, 'publish_dashboard', { path: 'kept', spec: { ...salesSpec(), title: 'Sales again' } });
      expect(again.isError, text(again)).to.equal(undefined);
      const store = app.container.get<DashboardStore>(DashboardStore);
      const dashboard = (await store.findDashboard({ kind: 'user', id: principal.userId }, 'kept'))!;
      expect(dashboard.connection).to.equal(connection.id);
      const version = (await store.getVersion(dashboard.id, dashboard.currentVersionId))!;
      // The warehouse's sales, not a query against `self` (which has no sales table at all).
      expect(Buffer.from((await store.getFile(version.files['data.json']!.sha256))!).toString()).to.include('180.5');
    });

    it('a refresh tries a failing connection again and runs once the warehouse is back; a disabled one stays refused', async () => {
      const { principal, connection } = await proWithConnection();
      expect((await tools.call(principal, 'publish_dashboard', { path: 'back', spec: salesSpec(), connection: connection.id })).isError).to.equal(undefined);
      const store = app.container.get<DashboardStore>(DashboardStore);
      const dashboard = (await store.findDashboard({ kind: 'user', id: principal.userId }, 'back'))!;
      // Marked failing while the warehouse was briefly down.
      await app.container.get<ConnectionStore>(ConnectionStore).recordTest(connection.id, { status: 'failing', testedAt: new Date(), error: 'connection refused' });

      const run = await app.container.get(RefreshDashboard).run(dashboard.id, 'schedule');
      expect(run).to.include({ outcome: 'success', error: null });
      expect((await connections().list({ kind: 'personal', userId: principal.userId })).find((c) => c.id === connection.id)).to.include({ status: 'active', lastError: null });

      await connections().disable(connection.id);
      const refused = await app.container.get(RefreshDashboard).run(dashboard.id, 'schedule');
      expect(refused!.outcome).to.equal('failure');
      expect(refused!.error).to.contain('is not active (status: disabled)');
      expect((await connections().enable(connection.id)).status).to.equal('active');
    });

    it('a new publish replaces a stale live render', async () => {
      const { principal, connection } = await proWithConnection();
      await tools.call(principal, 'publish_dashboard', { path: 'fresh', spec: salesSpec(), connection: connection.id });
      const store = app.container.get<DashboardStore>(DashboardStore);
      const dashboard = (await store.findDashboard({ kind: 'user', id: principal.userId }, 'fresh'))!;
      await app.container.get(RefreshDashboard).run(dashboard.id, 'manual');
      expect(await liveBytes(dashboard.id, 'index.html')).not.to.equal(null);
      await tools.call(principal, 'publish_dashboard', { path: 'fresh', spec: { ...salesSpec(), title: 'Sales v2' }, connection: connection.id });
      expect(await liveBytes(dashboard.id, 'index.html')).to.equal(null);
    });

    it('folds a trigger into the refresh already waiting without spending the owner\'s budget', async () => {
      const { principal, connection } = await proWithConnection();
      await tools.call(principal, 'publish_dashboard', { path: 'waiting', spec: salesSpec(), connection: connection.id });
      const options = app.container.get<RefreshOptions>(RefreshOptions) as { budgetPerHour: number };
      const budget = options.budgetPerHour;
      options.budgetPerHour = 1; // one manual run an hour: a second counted trigger would be refused
      try {
        const first = await tools.call(principal, 'trigger_refresh', { slug: 'waiting' });
        expect(text(first)).to.match(/^Queued a refresh of /);
        // No worker runs in this container, so the job stays waiting.
        for (let i = 0; i < 2; i++) {
          const again = await tools.call(principal, 'trigger_refresh', { slug: 'waiting' });
          expect(again.isError, text(again)).to.equal(undefined);
          expect(text(again)).to.contain('is already waiting to run; no second one was queued.');
          expect(json(again)).to.include({ queued: false, already_queued: true });
        }
      } finally {
        options.budgetPerHour = budget;
      }
    });

    it('sets, shows and clears a schedule with the next three run times', async () => {
      const { principal, connection } = await proWithConnection();
      await tools.call(principal, 'publish_dashboard', { path: 'sched', spec: salesSpec(), connection: connection.id });
      const r = await tools.call(principal, 'set_refresh_schedule', { slug: 'sched', schedule: '0 6 * * *', timezone: 'Europe/Paris' });
      expect(r.isError, text(r)).to.equal(undefined);
      const runs = r.structuredContent!.next_runs as string[];
      expect(runs).to.have.length(3);
      for (const run of runs) expect(['04:00', '05:00']).to.include(run.slice(11, 16)); // 06:00 Paris in UTC
      const status = json(await tools.call(principal, 'get_refresh_status', { slug: 'sched' }));
      expect(status).to.include({ schedule: '0 6 * * *', timezone: 'Europe/Paris', next_run_at: runs[0] });

      const missing = await tools.call(principal, 'set_refresh_schedule', { slug: 'nope', schedule: '* * * * *' });
      expect(text(missing)).to.equal('No dashboard named "nope" in that workspace');
      const bad = await tools.call(principal, 'set_refresh_schedule', { slug: 'sched', schedule: '* * * *' });
      expect(text(bad)).to.include('exactly 5 fields');
      const zone = await tools.call(principal, 'set_refresh_schedule', { slug: 'sched', schedule: '* * * * *', timezone: 'Mars/Base' });
      expect(text(zone)).to.include('IANA time zone');

      const cleared = await tools.call(principal, 'set_refresh_schedule', { slug: 'sched', schedule: null });
      expect(cleared.structuredContent).to.include({ schedule: null });
      expect(json(await tools.call(principal, 'get_refresh_status', { slug: 'sched' })).schedule).to.equal(null);

      const missingStatus = await tools.call(principal, 'get_refresh_status', { slug: 'nope' });
      expect(text(missingStatus)).to.equal('No dashboard named "nope" in your account');
    });

    it('claims each due scheduled run exactly once when instances tick together', async () => {
      const { principal, connection } = await proWithConnection();
      await tools.call(principal, 'publish_dashboard', { path: 'tick', spec: salesSpec(), connection: connection.id });
      const store = app.container.get<DashboardStore>(DashboardStore);
      const dashboard = (await store.findDashboard({ kind: 'user', id: principal.userId }, 'tick'))!;
      const state = app.container.get<RefreshStateStore>(RefreshStateStore);
      const due = new Date(Date.now() - 60_000);
      await state.setSchedule({ dashboardId: dashboard.id, cron: '* * * * *', timezone: 'UTC', nextRunAt: due });
      const sent: RefreshJob[] = [];
      const queue = { enqueue: async (job: RefreshJob) => (sent.push(job), true), isWaiting: async () => false, pending: async () => null };
      const clock = { now: () => new Date() };
      const instances = [1, 2, 3].map(() => new RefreshScheduler(state, queue, clock));
      const ticked = Date.now();
      await Promise.all(instances.map((s) => s.tick()));
      expect(sent.filter((j) => j.dashboardId === dashboard.id)).to.deep.equal([{ dashboardId: dashboard.id, trigger: 'schedule' }]);
      // After the tick, not after now: the minute may turn between the two.
      expect((await state.getSchedule(dashboard.id))!.nextRunAt!.getTime()).to.be.greaterThan(ticked);
    });

    it('warns that a workspace dashboard bound to a personal connection can never refresh, on dry_run too', async () => {
      const { user, principal, connection } = await proWithConnection();
      const accounts = app.container.get<AccountStore>(AccountStore);
      const workspace = await aWorkspace(accounts, { slug: uniq('ws') });
      await accounts.addMember(workspace.id, user.id, 'admin');
      const locked = { ...principal, lock: { kind: 'workspace' as const, workspaceId: workspace.id, workspaceSlug: workspace.slug } };
      for (const dry_run of [true, false]) {
        const r = await tools.call(locked, 'publish_dashboard', { path: 'team', spec: salesSpec(), connection: connection.id, dry_run });
        expect(r.isError, text(r)).to.equal(undefined);
        expect(text(r)).to.include('can never refresh');
      }
      const dashboard = (await app.container.get<DashboardStore>(DashboardStore).findDashboard(ownerOf({ kind: 'workspace', workspaceId: workspace.id, slug: workspace.slug }), 'team'))!;
      const run = await app.container.get(RefreshDashboard).run(dashboard.id, 'schedule');
      expect(run!.outcome).to.equal('failure');
      expect(run!.error).to.include('can never refresh');

      const trigger = await tools.call(locked, 'trigger_refresh', { slug: 'team' });
      expect(text(trigger)).to.equal(
        "Triggering a refresh on demand isn't available for workspace dashboards yet - it works on personal dashboards only.",
      );
      const withWorkspace = await tools.call(principal, 'trigger_refresh', { slug: 'team', workspace: workspace.slug });
      expect(withWorkspace.isError).to.equal(true);
      expect(text(withWorkspace)).to.equal(text(trigger));
    });
  });

  describe('the pg-boss queue with two server instances', () => {
    let first: AppContainer;
    let second: AppContainer;
    const stops: Array<() => Promise<void>> = [];

    before(async () => {
      const settings = testSettings({ databaseUrl: service.url, secretKey: SECRET });
      first = await buildContainer(settings, { refreshWorkers: true });
      second = await buildContainer(settings, { refreshWorkers: true });
      // The workers start where the service runs (startServer), as here.
      stops.push(await startBackgroundWork(first), await startBackgroundWork(second));
    });
    after(async () => {
      for (const stop of stops) await stop();
      await first?.close();
      await second?.close();
    });

    async function waitForRuns(dashboardId: string, count: number, timeoutMs = 20_000) {
      const state = app.container.get<RefreshStateStore>(RefreshStateStore);
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const runs = await state.runsOf([dashboardId]);
        if (runs.length >= count || Date.now() > deadline) return runs;
        await new Promise((r) => setTimeout(r, 200));
      }
    }

    it('starts on a fresh database when several instances start at once', async () => {
      const fresh = await createTestDatabase();
      const queues = [1, 2, 3].map(() => new PgBossRefreshQueue(fresh.url, { worker: false }));
      try {
        // Each creates pg-boss's schema and the two queues if missing: racing, they used to deadlock.
        const sent = await Promise.all(queues.map((queue) => queue.sendTick()));
        expect(sent).to.have.length(3);
      } finally {
        await Promise.all(queues.map((queue) => queue.close()));
        await fresh.drop();
      }
    });

    it('runs a triggered refresh through the queue and a scheduled tick once across both instances', async () => {
      const { principal, connection } = await proWithConnection();
      const tools1 = registry(first.container);
      await tools1.call(principal, 'publish_dashboard', { path: 'boss', spec: salesSpec(), connection: connection.id });
      const dashboard = (await app.container.get<DashboardStore>(DashboardStore).findDashboard({ kind: 'user', id: principal.userId }, 'boss'))!;

      const triggered = await tools1.call(principal, 'trigger_refresh', { slug: 'boss' });
      expect(text(triggered)).to.include('Queued a refresh');
      const afterTrigger = await waitForRuns(dashboard.id, 1);
      expect(afterTrigger.map((r) => [r.trigger, r.outcome])).to.deep.equal([['manual', 'success']]);

      const state = app.container.get<RefreshStateStore>(RefreshStateStore);
      await state.setSchedule({ dashboardId: dashboard.id, cron: '0 0 1 1 *', timezone: 'UTC', nextRunAt: new Date(Date.now() - 1000) });
      // Both instances tick at once (as if the minute came round on each).
      await Promise.all([first.container.get(PgBossRefreshQueue).sendTick(), second.container.get(PgBossRefreshQueue).sendTick()]);
      const afterTick = await waitForRuns(dashboard.id, 2);
      expect(afterTick.map((r) => r.trigger)).to.deep.equal(['manual', 'schedule']);
      await new Promise((r) => setTimeout(r, 3_000));
      expect(await state.runsOf([dashboard.id])).to.have.length(2);
      const status = json(await tools1.call(principal, 'get_refresh_status', { slug: 'boss' }));
      expect(status.last_run).to.include({ trigger: 'schedule', outcome: 'success', rows: 3 });
    });
  });
});
