import { expect } from 'chai';
import { CheckAlerts } from '../../application/alerts/check-alerts.js';
import { RefreshFailureNotices } from '../../application/alerts/refresh-failure-notices.js';
import { ManageSubscriptions } from '../../application/delivery/manage-subscriptions.js';
import { DashboardStore, type DashboardRecord } from '../../application/ports/dashboard-store.js';
import { SubscriptionStore } from '../../application/ports/subscription-store.js';
import type { RefreshRun } from '../../application/ports/refresh-state-store.js';
import { MemoryDeliveryQueue } from '../../adapters/jobs/memory-delivery-queue.js';
import { parseDashboardSpec, type Row } from '../../domain/dashboard-spec.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { startWebhookReceiver, type WebhookReceiver } from '../support/delivery-receivers.js';
import { makeUser, registry, text } from '../support/refresh-fixtures.js';
import { testSettings } from '../support/settings.js';

const OPERATOR = { kind: 'operator' } as const;
const spec = parseDashboardSpec({
  title: 'Orders',
  queries: { orders: { sql: 'SELECT 1' } },
  panels: [{ id: 't', type: 'table', query: 'orders' }],
  alerts: [
    { id: 'big', query: 'orders', column: 'n', when: { '>=': 10 }, message: 'Ten orders or more' },
    { id: 'moved', query: 'orders', column: 'status', row: 'first', when: 'changes', message: 'Status moved' },
  ],
});

/** The alert check with memory storage: which runs queue notifications, to which subscriptions, and the failure streak. */
describe('alerts with memory storage: what a run queues', function () {
  this.timeout(60_000);
  let app: AppContainer;
  let hook: WebhookReceiver;
  let dashboard: DashboardRecord;
  let run = 0;

  before(async () => {
    hook = await startWebhookReceiver();
    app = await buildContainer(testSettings({ allowPrivateWebhooks: true }), { storage: 'memory' });
    const { user, principal } = await makeUser(app.container, 'free');
    const published = await registry(app.container).call(principal, 'publish_dashboard', { path: 'orders', body: '<p>orders</p>' });
    expect(published.isError, text(published)).to.equal(undefined);
    dashboard = (await app.container.get<DashboardStore>(DashboardStore).findDashboard({ kind: 'user', id: user.id }, 'orders'))!;
    const subscriptions = app.container.get(ManageSubscriptions);
    await subscriptions.add(OPERATOR, { owner: user.handle }, 'orders', { channel: 'webhook', target: `${hook.url}/active` });
    const paused = await subscriptions.add(OPERATOR, { owner: user.handle }, 'orders', { channel: 'webhook', target: `${hook.url}/paused` });
    await app.container.get<SubscriptionStore>(SubscriptionStore).recordFailure(paused.subscription.id, 'down', new Date(), 1);
  });
  after(async () => {
    await app?.close();
    await hook?.close();
  });

  const check = async (rows: Row[]) => {
    const changed = await app.container.get(CheckAlerts).afterRefresh(dashboard, `run-${++run}`, { spec, data: { orders: rows } });
    await app.container.get(MemoryDeliveryQueue).idle();
    return changed.map((s) => `${s.alertId}:${s.status}`);
  };
  const alerts = () => hook.received.map((p) => ({ path: p.path, ...JSON.parse(p.body).alert }));

  it('queues a notification per flipped alert to each active subscription only, nothing on the first "changes" check', async () => {
    expect(await check([{ n: 3, status: 'open' }])).to.deep.equal([]);
    expect(await check([{ n: '12', status: 'open' }])).to.deep.equal(['big:firing']);
    expect(alerts()).to.have.length(1);
    expect(alerts()[0]).to.deep.include({ path: '/active', id: 'big', state: 'firing', value: '12', message: 'Ten orders or more' });
    expect(JSON.parse(hook.received[0]!.body).event).to.equal('alert');
  });

  it('stays quiet while nothing flips, then "changes" fires on a new value and clears on the next same one', async () => {
    expect(await check([{ n: 11, status: 'open' }])).to.deep.equal([]);
    expect(await check([{ n: 11, status: 'shipped' }])).to.deep.equal(['moved:firing']);
    expect(await check([{ n: 2, status: 'shipped' }])).to.deep.equal(['big:ok', 'moved:ok']);
    expect(alerts().map((a) => `${a.path} ${a.id}:${a.state}`)).to.deep.equal(['/active big:firing', '/active moved:firing', '/active big:ok', '/active moved:ok']);
  });

  it('keeps a failure streak: started once, continued, ended by a success', async () => {
    const notices = app.container.get(RefreshFailureNotices);
    const aRun = (outcome: RefreshRun['outcome']): RefreshRun => ({ id: `r${++run}`, dashboardId: dashboard.id, trigger: 'schedule', startedAt: new Date(), durationMs: 1, outcome, rows: 0, error: outcome === 'failure' ? 'boom' : null });
    const events = [];
    for (const outcome of ['success', 'failure', 'failure', 'success', 'success'] as const) events.push(await notices.afterRun(dashboard, aRun(outcome)));
    expect(events).to.deep.equal([null, 'started', 'continued', 'ended', null]);
  });
});
