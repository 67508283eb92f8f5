import { expect } from 'chai';
import { DataSource } from 'typeorm';
import { ManageSubscriptions } from '../../application/delivery/manage-subscriptions.js';
import { AccountStore } from '../../application/ports/account-store.js';
import { DashboardStore } from '../../application/ports/dashboard-store.js';
import { RefreshStateStore } from '../../application/ports/refresh-state-store.js';
import { PgBossRefreshQueue } from '../../adapters/jobs/pg-boss-refresh-queue.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { eventually, startWebhookReceiver, type WebhookReceiver } from '../support/delivery-receivers.js';
import { aUser } from '../support/mothers.js';
import { callToolOverHttp as callTool, freePort, spawnServer } from '../support/server.js';
import { testSettings } from '../support/settings.js';
import { mintAccessToken } from '../support/tokens.js';

type Spawned = Awaited<ReturnType<typeof spawnServer>>;
const OPERATOR = { kind: 'operator' } as const;
/** Room for a duplicate delivery to show up after the first (two pollers at 2 seconds each). */
const SETTLE_MS = 5_000;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Issue 33: deliveries as pg-boss jobs across two `dashpub serve` processes on one PostgreSQL. Each
 * scheduled refresh delivers once, a subscription's own cron delivers once, and an SMTP server that is
 * down gives three retries with backoff, one recorded failure, and a pause at the tenth in a row.
 */
describe('e2e: delivery jobs on two dashpub serve processes', function () {
  this.timeout(300_000);
  let database: TestDatabase;
  let servers: Spawned[] = [];
  let admin: AppContainer;
  let hook: WebhookReceiver;
  let db: DataSource;
  let dashboardId: string;
  let subscriptions: ManageSubscriptions;

  const tick = () => Promise.all([admin.container.get(PgBossRefreshQueue).sendTick(), admin.container.get(PgBossRefreshQueue).sendTick()]);
  /** Due now, in whole seconds: the app claims by equality on the time it wrote. */
  const dueNow = (table: 'refresh_schedules' | 'delivery_subscriptions', column: 'dashboard_id' | 'id', id: string) =>
    db.query(`UPDATE ${table} SET next_run_at = date_trunc('second', now()) - interval '1 second' WHERE ${column} = $1`, [id]);

  before(async () => {
    database = await createMigratedTestDatabase();
    hook = await startWebhookReceiver();
    const env = {
      DATABASE_URL: database.url,
      REDIS_URL: '',
      ALLOW_PRIVATE_WEBHOOKS: 'true',
      SMTP_URL: `smtp://127.0.0.1:${await freePort()}`,
      MAIL_FROM: 'reports@example.com',
      DELIVERY_RETRY_DELAY_SECONDS: '1',
    };
    servers = await Promise.all([spawnServer(env), spawnServer(env)]);
    admin = await buildContainer(testSettings({ databaseUrl: database.url, allowPrivateWebhooks: true }), { role: 'cli', refreshWorkers: false });
    db = admin.container.get(DataSource);
    subscriptions = admin.container.get(ManageSubscriptions);
    const user = await aUser(admin.container.get<AccountStore>(AccountStore), { handle: 'ada' });
    const token = (await mintAccessToken(admin.container, { userId: user.id, lock: { kind: 'personal' } })).access_token;
    const spec = {
      title: 'Sales',
      queries: { count: { sql: 'SELECT count(*)::int AS n FROM dashboards' } },
      panels: [{ id: 'n', type: 'stat', title: 'Dashboards', query: 'count', value: 'n' }],
    };
    const published = await callTool(servers[0]!, token, 'publish_dashboard', { path: 'sales', spec });
    expect(published.isError, published.text).to.equal(false);
    const scheduled = await callTool(servers[1]!, token, 'set_refresh_schedule', { slug: 'sales', schedule: '0 3 * * *' });
    expect(scheduled.isError, scheduled.text).to.equal(false);
    dashboardId = (await admin.container.get<DashboardStore>(DashboardStore).findDashboard({ kind: 'user', id: user.id }, 'sales'))!.id;
  });
  after(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await admin?.close();
    await hook?.close();
    await database?.drop();
  });

  it('delivers exactly once per scheduled refresh run, whichever instance ran it', async () => {
    await subscriptions.add(OPERATOR, { owner: 'ada' }, 'sales', { channel: 'webhook', target: `${hook.url}/after-refresh` });
    const state = admin.container.get<RefreshStateStore>(RefreshStateStore);
    for (const round of [1, 2]) {
      await dueNow('refresh_schedules', 'dashboard_id', dashboardId);
      await tick();
      await eventually(async () => (await state.runsOf([dashboardId])).length === round, `scheduled run ${round}`, 60_000);
      await eventually(() => hook.received.length === round, `delivery ${round}`);
      await pause(SETTLE_MS);
      const runs = await state.runsOf([dashboardId]);
      expect(runs.map((r) => [r.trigger, r.outcome])).to.deep.equal(Array(round).fill(['schedule', 'success']));
      expect(hook.received.map((p) => p.path)).to.deep.equal(Array(round).fill('/after-refresh'));
    }
    expect(JSON.parse(hook.received[1]!.body).refreshed_at).to.not.equal(JSON.parse(hook.received[0]!.body).refreshed_at);
  });

  it('delivers a subscription\'s own cron once across instances and moves its next run on', async () => {
    const { subscription } = await subscriptions.add(OPERATOR, { owner: 'ada' }, 'sales', { channel: 'slack', target: `${hook.url}/own-cron`, cron: '0 9 * * 1', timezone: 'Europe/Paris' });
    const before = hook.received.length;
    await dueNow('delivery_subscriptions', 'id', subscription.id);
    const ticked = Date.now();
    await tick();
    await eventually(() => hook.received.length > before, 'the cron delivery');
    await pause(SETTLE_MS);
    expect(hook.received.slice(before).map((p) => p.path)).to.deep.equal(['/own-cron']);
    const [row] = await db.query(`SELECT next_run_at FROM delivery_subscriptions WHERE id = $1`, [subscription.id]);
    expect(new Date(row.next_run_at).getTime()).to.be.greaterThan(ticked);
  });

  it('with SMTP down: three retries with backoff, one failure recorded with its error, paused at the tenth in a row', async () => {
    const { subscription } = await subscriptions.add(OPERATOR, { owner: 'ada' }, 'sales', { channel: 'email', target: 'team@example.com', cron: '30 7 * * *' });
    // Nine failures already in a row: this delivery's is the tenth.
    await db.query(`UPDATE delivery_subscriptions SET consecutive_failures = 9 WHERE id = $1`, [subscription.id]);
    await dueNow('delivery_subscriptions', 'id', subscription.id);
    await tick();
    const job = async () =>
      (await db.query(`SELECT state, retry_count FROM pgboss.job WHERE name = 'dashpub-delivery' AND data->>'subscriptionId' = $1`, [subscription.id]))[0] as
        | { state: string; retry_count: number }
        | undefined;
    await eventually(async () => (await job())?.state === 'completed', 'the delivery job to end after its retries', 90_000);
    expect((await job())!.retry_count).to.equal(3);
    const [row] = await db.query(`SELECT consecutive_failures, paused, last_error FROM delivery_subscriptions WHERE id = $1`, [subscription.id]);
    expect(row).to.deep.include({ consecutive_failures: 10, paused: true });
    expect(row.last_error).to.match(/ECONNREFUSED/);
    // Paused: its next due time queues nothing.
    await dueNow('delivery_subscriptions', 'id', subscription.id);
    await tick();
    await pause(SETTLE_MS);
    const [jobs] = await db.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'dashpub-delivery' AND data->>'subscriptionId' = $1`, [subscription.id]);
    expect(jobs.n).to.equal(1);
  });
});
