import { expect } from 'chai';
import { DataSource } from 'typeorm';
import { AccountStore } from '../../application/ports/account-store.js';
import { DashboardStore } from '../../application/ports/dashboard-store.js';
import { RefreshStateStore } from '../../application/ports/refresh-state-store.js';
import { PgBossRefreshQueue } from '../../adapters/jobs/pg-boss-refresh-queue.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { request } from '../support/http.js';
import { callToolOverHttp as callTool, spawnServer } from '../support/server.js';
import { testSettings } from '../support/settings.js';
import { mintAccessToken } from '../support/tokens.js';
import { aUser } from '../support/mothers.js';

type Spawned = Awaited<ReturnType<typeof spawnServer>>;
const SECRET_KEY = 'scale-out-secret';

/** The service as operators run it: `dashpub serve` processes, alone on the embedded default or several on one PostgreSQL. */
describe('e2e: dashpub serve processes', function () {
  this.timeout(120_000);

  it('starts on the embedded default with no database configured and answers /healthz', async () => {
    const server = await spawnServer({ DATABASE_URL: '', REDIS_URL: '' }, 60_000);
    try {
      const res = await request({ url: `${server.url}/healthz`, host: server.hosts.api });
      expect(res.status).to.equal(200);
      expect(res.headers['content-type']).to.match(/^text\/plain/);
      expect(res.text).to.equal('ok');
    } finally {
      await server.close();
    }
  });

  describe('two processes started together on one PostgreSQL and one Redis', () => {
    let database: TestDatabase;
    let servers: Spawned[] = [];
    let admin: AppContainer;

    before(async () => {
      database = await createTestDatabase();
      const env = { DATABASE_URL: database.url, REDIS_URL: process.env.REDIS_URL || 'redis://127.0.0.1:6379', SECRET_KEY };
      // Together, on a fresh database: both migrate and create the job queues at once.
      servers = await Promise.all([spawnServer(env), spawnServer(env)]);
      admin = await buildContainer(testSettings({ databaseUrl: database.url, secretKey: SECRET_KEY }), { role: 'cli', refreshWorkers: false });
    });

    after(async () => {
      await Promise.all(servers.map((server) => server.close()));
      await admin?.close();
      await database?.drop();
    });

    async function userToken(handle: string) {
      const user = await aUser(admin.container.get<AccountStore>(AccountStore), { handle });
      return { user, token: (await mintAccessToken(admin.container, { userId: user.id, lock: { kind: 'personal' } })).access_token };
    }

    it('share one 60-per-minute publish budget', async () => {
      const { token } = await userToken('budget');
      for (let i = 0; i < 60; i++) {
        const r = await callTool(servers[i % 2]!, token, 'publish_dashboard', { path: `page-${i}`, body: `<p>${i}</p>` });
        expect(r.isError, `publish ${i}: ${r.text}`).to.equal(false);
      }
      for (const server of servers) {
        const refused = await callTool(server, token, 'publish_dashboard', { path: 'one-more', body: 'x' });
        expect(refused.isError).to.equal(true);
        expect(refused.text).to.equal('Rate limit exceeded for publish_dashboard: too many requests. Wait about 60 seconds and try again.');
      }
    });

    it('schedule the refresh tick every minute and the file sweep every hour, once for both', async () => {
      const rows: Array<{ name: string; cron: string }> = await admin.container.get(DataSource).query(`SELECT name, cron FROM pgboss.schedule ORDER BY name`);
      expect(rows.map((r) => [r.name, r.cron])).to.deep.equal([
        ['dashpub-file-sweep', '17 * * * *'],
        ['dashpub-refresh-tick', '* * * * *'],
      ]);
    });

    it('run a due scheduled refresh exactly once when both take a tick', async () => {
      const { user, token } = await userToken('sched');
      const spec = {
        title: 'My dashboards',
        queries: { count: { sql: 'SELECT count(*)::int AS n FROM dashboards' } },
        panels: [{ id: 'n', type: 'stat', title: 'Dashboards', query: 'count', value: 'n' }],
      };
      const published = await callTool(servers[0]!, token, 'publish_dashboard', { path: 'mine', spec });
      expect(published.isError, published.text).to.equal(false);
      const scheduled = await callTool(servers[1]!, token, 'set_refresh_schedule', { slug: 'mine', schedule: '0 3 * * *' });
      expect(scheduled.isError, scheduled.text).to.equal(false);
      const dashboard = (await admin.container.get<DashboardStore>(DashboardStore).findDashboard({ kind: 'user', id: user.id }, 'mine'))!;

      // Due now (whole seconds: the app writes millisecond times and claims by equality); then two ticks,
      // which the two processes' workers take up, as when each instance's minute comes round.
      await admin.container.get(DataSource).query(`UPDATE refresh_schedules SET next_run_at = date_trunc('second', now()) - interval '1 second' WHERE dashboard_id = $1`, [dashboard.id]);
      const queue = admin.container.get(PgBossRefreshQueue);
      const ticked = Date.now();
      await Promise.all([queue.sendTick(), queue.sendTick()]);

      const state = admin.container.get<RefreshStateStore>(RefreshStateStore);
      const deadline = Date.now() + 60_000;
      while ((await state.runsOf([dashboard.id])).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 250));
      await new Promise((resolve) => setTimeout(resolve, 5_000)); // room for a duplicate to show up
      const runs = await state.runsOf([dashboard.id]);
      expect(runs.map((r) => [r.trigger, r.outcome])).to.deep.equal([['schedule', 'success']]);
      const [schedule] = await admin.container.get(DataSource).query(`SELECT next_run_at FROM refresh_schedules WHERE dashboard_id = $1`, [dashboard.id]);
      // After the tick, not after now: a run across 03:00 UTC would otherwise see its next run in the past.
      expect(new Date(schedule.next_run_at).getTime()).to.be.greaterThan(ticked);
    });
  });
});
