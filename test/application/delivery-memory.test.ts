import { expect } from 'chai';
import { Deliver } from '../../application/delivery/deliver.js';
import { DeliveryScheduler } from '../../application/delivery/delivery-scheduler.js';
import { ManageSubscriptions } from '../../application/delivery/manage-subscriptions.js';
import { DashboardStore } from '../../application/ports/dashboard-store.js';
import { RefreshDashboard } from '../../application/refresh/refresh-dashboard.js';
import { MemoryDeliveryQueue } from '../../adapters/jobs/memory-delivery-queue.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/delivery-receivers.js';
import { makeUser, registry, text } from '../support/refresh-fixtures.js';
import { testSettings } from '../support/settings.js';

const OPERATOR = { kind: 'operator' } as const;
const selfSpec = {
  title: 'Mine',
  queries: { list: { sql: 'SELECT slug FROM dashboards ORDER BY slug' } },
  panels: [{ id: 't', type: 'table', query: 'list' }],
};

/** When deliveries go out (memory storage, a local receiver): after scheduled runs only, and a cron slot once. */
describe('delivery with memory storage: when subscriptions send', function () {
  this.timeout(60_000);
  let app: AppContainer;
  let hook: WebhookReceiver;
  let dashboardId: string;
  let handle: string;

  before(async () => {
    hook = await startWebhookReceiver();
    app = await buildContainer(testSettings({ allowPrivateWebhooks: true }), { storage: 'memory' });
    const { user, principal } = await makeUser(app.container, 'free');
    const published = await registry(app.container).call(principal, 'publish_dashboard', { path: 'mine', spec: selfSpec });
    expect(published.isError, text(published)).to.equal(undefined);
    dashboardId = (await app.container.get<DashboardStore>(DashboardStore).findDashboard({ kind: 'user', id: user.id }, 'mine'))!.id;
    handle = user.handle;
    await app.container.get(ManageSubscriptions).add(OPERATOR, { owner: handle }, 'mine', { channel: 'webhook', target: `${hook.url}/after` });
    await app.container.get(ManageSubscriptions).add(OPERATOR, { owner: handle }, 'mine', { channel: 'webhook', target: `${hook.url}/cron`, cron: '0 6 * * *', timezone: 'Asia/Tokyo' });
  });
  after(async () => {
    await app?.close();
    await hook?.close();
  });

  const delivered = async () => {
    await app.container.get(MemoryDeliveryQueue).idle();
    return hook.received.map((p) => p.path);
  };

  it('sends after a successful scheduled refresh only: not after a manual or publish-time run', async () => {
    const refresh = app.container.get(RefreshDashboard);
    expect((await refresh.run(dashboardId, 'manual'))!.outcome).to.equal('success');
    expect((await refresh.run(dashboardId, 'publish'))!.outcome).to.equal('success');
    expect(await delivered()).to.deep.equal([]);
    expect((await refresh.run(dashboardId, 'schedule'))!.outcome).to.equal('success');
    expect(await delivered()).to.deep.equal(['/after']);
  });

  it('sends a subscription\'s own cron once per slot, however many ticks see it due', async () => {
    const scheduler = app.container.get(DeliveryScheduler);
    const [cron] = (await app.container.get(ManageSubscriptions).list(OPERATOR, { owner: handle }, 'mine')).filter((s) => s.subscription.cron !== null);
    const due = cron!.subscription.nextRunAt!;
    expect(due.toISOString()).to.match(/T21:00:00\.000Z$/); // 06:00 in Tokyo
    const ticks = await Promise.all([scheduler.tick(due), scheduler.tick(due), scheduler.tick(new Date(due.getTime() + 1000))]);
    expect(ticks.flat()).to.deep.equal([cron!.subscription.id]);
    expect(await delivered()).to.deep.equal(['/after', '/cron']);
    expect(await scheduler.tick(new Date(due.getTime() + 60_000))).to.deep.equal([]);
  });

  it('skips a subscription removed while its delivery waited', async () => {
    const [after] = await app.container.get(ManageSubscriptions).list(OPERATOR, { owner: handle }, 'mine');
    await app.container.get(ManageSubscriptions).remove(OPERATOR, after!.subscription.id);
    expect(await app.container.get(Deliver).run(after!.subscription.id, { final: true })).to.deep.equal({ status: 'skipped', reason: 'the subscription no longer exists' });
  });
});
