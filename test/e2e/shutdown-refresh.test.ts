import { expect } from 'chai';
import { DataSource } from 'typeorm';
import { AccountStore } from '../../application/ports/account-store.js';
import { DashboardStore } from '../../application/ports/dashboard-store.js';
import { RefreshStateStore, type RefreshRun } from '../../application/ports/refresh-state-store.js';
import { REFRESH_QUEUE } from '../../adapters/jobs/pg-boss-refresh-queue.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { callToolOverHttp, spawnServer, type SpawnedServer } from '../support/server.js';
import { testSettings } from '../support/settings.js';
import { mintAccessToken } from '../support/tokens.js';
import { aUser } from '../support/mothers.js';

const SECRET_KEY = 'shutdown-refresh-secret';
/** A refresh that takes a few seconds: long enough to be running when the signal comes. */
const slowSpec = (seconds: number) => ({
  title: 'Slow',
  queries: { slow: { sql: `SELECT pg_sleep(${seconds})::text AS slept, 1 AS n` } },
  panels: [{ id: 'n', type: 'stat', title: 'N', query: 'slow', value: 'n' }],
});

/** SIGTERM to the instance running a refresh: the run completes within the grace, or another instance runs it. */
describe('e2e: a refresh running when its instance is told to stop', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let admin: AppContainer;
  const spawned: SpawnedServer[] = [];

  before(async () => {
    database = await createMigratedTestDatabase();
    admin = await buildContainer(testSettings({ databaseUrl: database.url, secretKey: SECRET_KEY }), { role: 'cli', refreshWorkers: false });
  });

  after(async () => {
    await Promise.all(spawned.map((server) => server.close()));
    await admin?.close();
    await database?.drop();
  });

  const serve = async (env: NodeJS.ProcessEnv = {}) => {
    const server = await spawnServer({ DATABASE_URL: database.url, REDIS_URL: '', SECRET_KEY, ...env }, 60_000);
    spawned.push(server);
    return server;
  };

  /** A tool call that must succeed. */
  async function callTool(server: SpawnedServer, token: string, name: string, args: Record<string, unknown>) {
    const result = await callToolOverHttp(server, token, name, args);
    expect(result.isError, result.text).to.equal(false);
  }

  /** A user with a slow refreshable dashboard, published through `server`; answers a trigger function. */
  async function slowDashboard(server: SpawnedServer, handle: string, seconds: number) {
    const user = await aUser(admin.container.get<AccountStore>(AccountStore), { handle });
    const { access_token } = await mintAccessToken(admin.container, { userId: user.id });
    await callTool(server, access_token, 'publish_dashboard', { path: 'slow', spec: slowSpec(seconds) });
    const dashboard = (await admin.container.get<DashboardStore>(DashboardStore).findDashboard({ kind: 'user', id: user.id }, 'slow'))!;
    return { id: dashboard.id, trigger: () => callTool(server, access_token, 'trigger_refresh', { slug: 'slow' }) };
  }

  async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number, what: string): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await read();
      if (done(value)) return value;
      if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)} after ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  const jobState = async (dashboardId: string): Promise<string | null> => {
    const rows: Array<{ state: string }> = await admin.container
      .get(DataSource)
      .query(`SELECT state FROM pgboss.job WHERE name = $1 AND singleton_key = $2 ORDER BY created_on DESC LIMIT 1`, [REFRESH_QUEUE, dashboardId]);
    return rows[0]?.state ?? null;
  };
  const runsOf = (dashboardId: string): Promise<RefreshRun[]> => admin.container.get<RefreshStateStore>(RefreshStateStore).runsOf([dashboardId]);

  it('completes within the grace period, then the instance exits 0', async () => {
    const leaving = await serve({ SHUTDOWN_GRACE_SECONDS: '20' });
    const dashboard = await slowDashboard(leaving, 'finisher', 3);
    await dashboard.trigger();
    await until(() => jobState(dashboard.id), (state) => state === 'active', 20_000, 'the refresh job');
    leaving.process.kill('SIGTERM');
    expect(await leaving.exited).to.equal(0);
    const runs = await runsOf(dashboard.id);
    expect(runs.map((run) => [run.trigger, run.outcome])).to.deep.equal([['manual', 'success']]);
  });

  it('is handed to another instance when the grace runs out first', async () => {
    const [leaving, staying] = await Promise.all([serve({ SHUTDOWN_GRACE_SECONDS: '1' }), serve()]);
    const dashboard = await slowDashboard(leaving, 'handover', 4);
    // Only the leaving instance may take the job: the other is paused until the leaving one has it.
    staying.process.kill('SIGSTOP');
    try {
      await dashboard.trigger();
      await until(() => jobState(dashboard.id), (state) => state === 'active', 20_000, 'the refresh job');
      leaving.process.kill('SIGTERM');
      expect(await leaving.exited).to.equal(0);
    } finally {
      staying.process.kill('SIGCONT');
    }
    expect(await jobState(dashboard.id), 'failed by the shutdown, waiting for its retry').to.equal('retry');
    const runs = await until(() => runsOf(dashboard.id), (list) => list.length > 0, 40_000, 'the retried run');
    expect(runs.map((run) => [run.trigger, run.outcome])).to.deep.equal([['manual', 'success']]);
  });
});
