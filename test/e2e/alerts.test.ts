import { expect } from 'chai';
import pg from 'pg';
import { ManageSubscriptions } from '../../application/delivery/manage-subscriptions.js';
import { DashboardStore } from '../../application/ports/dashboard-store.js';
import { RefreshQueue } from '../../application/ports/refresh-queue.js';
import { RefreshStateStore } from '../../application/ports/refresh-state-store.js';
import { SelfMetrics } from '../../application/ports/warehouse.js';
import { DELIVERY_QUEUE } from '../../adapters/jobs/pg-boss-refresh-queue.js';
import { AccountStore } from '../../application/ports/account-store.js';
import type { ToolRegistry } from '../../shells/koa/mcp/tool-registry.js';
import type { Principal } from '../../application/ports/token-verifier.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { eventually, startSmtpReceiver, startWebhookReceiver, type MailReceiver, type WebhookReceiver } from '../support/delivery-receivers.js';
import { aPrincipal } from '../support/mothers.js';
import { csrfOf, WebClient } from '../support/oauth-server.js';
import { json, registry, text } from '../support/refresh-fixtures.js';
import { startFullServer } from '../support/server.js';

const OPERATOR = { kind: 'operator' } as const;

/**
 * The `self` connection counts the owner's dashboards, so publishing and deleting one moves the value;
 * the guard divides by zero once there are four, which makes the refresh fail.
 */
const countsSpec = {
  title: 'Counts',
  queries: { counts: { sql: 'SELECT count(*)::int AS n, 1 / (4 - count(*))::int AS guard FROM dashboards' } },
  panels: [{ id: 'n', type: 'stat', query: 'counts', value: 'n' }],
  alerts: [{ id: 'many', query: 'counts', column: 'n', when: { '>': 1 }, message: 'More than one dashboard' }],
};

/**
 * Alerts and refresh-failure notices end to end: trigger_refresh queues pg-boss refresh jobs in PostgreSQL,
 * the server's workers run them and the deliveries they queue, to a real SMTP server and a local webhook;
 * the owner's dashboard page shows the states.
 */
describe('e2e: alerts and refresh-failure notices (PostgreSQL, pg-boss, SMTP, webhook)', function () {
  this.timeout(240_000);
  let database: TestDatabase;
  let server: Awaited<ReturnType<typeof startFullServer>>;
  let web: WebClient;
  let smtp: MailReceiver;
  let hook: WebhookReceiver;
  let tools: ToolRegistry;
  let principal: Principal;
  let owner: string;
  let dashboardId: string;
  let db: pg.Client;

  before(async () => {
    database = await createMigratedTestDatabase();
    [smtp, hook] = [await startSmtpReceiver(), await startWebhookReceiver()];
    server = await startFullServer({
      DATABASE_URL: database.url, REDIS_URL: '', ALLOW_PRIVATE_WEBHOOKS: 'true', SMTP_URL: smtp.url, MAIL_FROM: 'dashpub <alerts@example.com>', DELIVERY_RETRY_DELAY_SECONDS: '1', LOG_LEVEL: 'error',
    });
    const { container } = server.server.app;
    web = new WebClient(server.url, server.hosts.app);
    const form = await web.get('/sign-up');
    expect((await web.post('/sign-up', { csrf: csrfOf(form), handle: 'pat', email: 'pat@example.com', password: 'correct horse battery' })).status).to.equal(303);
    const user = (await container.get<AccountStore>(AccountStore).findUserByHandle('pat'))!;
    [principal, owner] = [aPrincipal(user.id), user.email];
    tools = registry(container);
    // The first query starts a PGlite worker, which can outlast a query's budget on a loaded machine.
    const sandbox = container.get<SelfMetrics>(SelfMetrics).open({ kind: 'user', id: user.id });
    for (let attempt = 1; attempt <= 3; attempt++) if (await sandbox.run('SELECT 1').then(() => true, () => false)) break;
    const published = await tools.call(principal, 'publish_dashboard', { path: 'counts', spec: countsSpec });
    expect(published.isError, text(published)).to.equal(undefined);
    dashboardId = (await container.get<DashboardStore>(DashboardStore).findDashboard({ kind: 'user', id: user.id }, 'counts'))!.id;
    const subscriptions = container.get(ManageSubscriptions);
    await subscriptions.add(OPERATOR, { owner: 'pat' }, 'counts', { channel: 'email', target: owner });
    await subscriptions.add(OPERATOR, { owner: 'pat' }, 'counts', { channel: 'webhook', target: `${hook.url}/alerts` });
    db = new pg.Client({ connectionString: database.url });
    await db.connect();
  });
  after(async () => {
    await db?.end();
    await server?.close();
    await smtp?.close();
    await hook?.close();
    await database?.drop();
  });

  /** trigger_refresh, then waits for its job to finish (its run recorded and its follow-ups queued). */
  async function refresh(): Promise<string> {
    const { container } = server.server.app;
    const state = container.get<RefreshStateStore>(RefreshStateStore);
    const before = (await state.lastRun(dashboardId))?.id;
    const triggered = await tools.call(principal, 'trigger_refresh', { slug: 'counts' });
    expect(triggered.isError, text(triggered)).to.equal(undefined);
    const queue = container.get<RefreshQueue>(RefreshQueue);
    await eventually(async () => (await state.lastRun(dashboardId))?.id !== before && (await queue.pending(dashboardId)) === null, 'the refresh run');
    return (await state.lastRun(dashboardId))!.outcome;
  }
  const publishOther = async (slug: string) => expect((await tools.call(principal, 'publish_dashboard', { path: slug, body: '<p>x</p>' })).isError).to.equal(undefined);
  const deleteOther = async (slug: string) => expect((await tools.call(principal, 'delete_dashboard', { slug })).isError).to.equal(undefined);
  /** Delivery jobs ever queued: a refresh that notifies nobody queues none. */
  const deliveryJobs = async () => Number((await db.query(`SELECT count(*) AS n FROM pgboss.job WHERE name = $1`, [DELIVERY_QUEUE])).rows[0].n);
  const alertMails = (prefix: string) => smtp.mails.filter((m) => m.subject?.startsWith(prefix));
  const alertPosts = () => hook.received.map((p) => JSON.parse(p.body)).filter((b) => b.event === 'alert');
  const ownerNotices = () => smtp.mails.filter((m) => /^Refresh (failing|recovered):/.test(m.subject ?? '')).map((m) => m.subject);

  it('notifies once when the alert crosses its threshold, with the value, the message and the image inline', async () => {
    expect(await refresh()).to.equal('success');
    expect(await deliveryJobs()).to.equal(0);
    await publishOther('second');
    expect(await refresh()).to.equal('success');
    await eventually(() => alertMails('Alert:').length === 1 && alertPosts().length === 1, 'the alert notifications');
    const mail = alertMails('Alert:')[0]!;
    expect(mail.subject).to.equal('Alert: More than one dashboard (counts)');
    expect(mail.text).to.include('The alert "many" fired: the value is 2.');
    expect(mail.html).to.include('src="cid:dashboard-image@dashpub"');
    expect(mail.attachments.find((a) => a.related)?.contentType, 'inline').to.equal('image/png');
    expect(mail.attachments.find((a) => a.contentDisposition === 'attachment')?.contentType, 'attached').to.equal('image/png');
    expect(mail.headerLines.find((h) => h.key === 'list-unsubscribe')?.line).to.match(/\/_unsubscribe\/[A-Za-z0-9_-]+/);
    const post = alertPosts()[0];
    expect(post.alert).to.deep.include({ id: 'many', state: 'firing', value: 2, message: 'More than one dashboard' });
    expect(post.alerts).to.have.length(1);
    expect(post.alerts[0]).to.deep.include({ id: 'many', state: 'firing', value: 2 });
    expect(hook.received.at(-1)!.headers['x-dashpub-signature']).to.match(/^sha256=[0-9a-f]{64}$/);
  });

  it('stays quiet on the next refresh while the alert is still true, and get_dashboard and the owner\'s page show it firing', async () => {
    const queued = await deliveryJobs();
    expect(queued).to.equal(2);
    expect(await refresh()).to.equal('success');
    expect(await deliveryJobs()).to.equal(queued);
    const got = json(await tools.call(principal, 'get_dashboard', { slug: 'counts' }));
    expect(got.alerts).to.have.length(1);
    expect(got.alerts[0]).to.deep.include({ id: 'many', state: 'firing', value: 2, message: 'More than one dashboard' });
    expect(got.alerts[0].changed_at).to.be.a('string');
    expect(got.alerts[0].checked_at > got.alerts[0].changed_at).to.equal(true);
    const page = await web.get('/dashboards/pat/counts');
    expect(page.status).to.equal(200);
    const section = page.text.slice(page.text.indexOf('<h2 id="alerts">'));
    expect(section).to.include('More than one dashboard').and.include('<span class="badge bad">firing</span>');
    expect(section).to.include(`${got.alerts[0].changed_at.slice(0, 16).replace('T', ' ')} UTC`);
    expect(page.text).to.not.include('Refreshes are failing');
  });

  it('notifies once more when the alert clears', async () => {
    await deleteOther('second');
    expect(await refresh()).to.equal('success');
    await eventually(() => alertMails('Cleared:').length === 1 && alertPosts().length === 2, 'the cleared notifications');
    expect(alertMails('Cleared:')[0]!.text).to.include('The alert "many" cleared: the value is 1.');
    expect(alertPosts().map((b) => b.alert.state)).to.deep.equal(['firing', 'ok']);
    expect(alertMails('Alert:')).to.have.length(1);
    expect(await deliveryJobs()).to.equal(4);
  });

  it('tells the owner once per failure streak, and once when a refresh succeeds again', async () => {
    for (const slug of ['third', 'fourth', 'fifth']) await publishOther(slug);
    const queued = await deliveryJobs();
    expect(await refresh()).to.equal('failure');
    expect(await refresh()).to.equal('failure');
    expect(ownerNotices()).to.deep.equal(['Refresh failing: counts']);
    const failing = smtp.mails.find((m) => m.subject === 'Refresh failing: counts')!;
    expect(failing.to && 'text' in failing.to ? failing.to.text : '').to.include(owner);
    expect(failing.text).to.include('division by zero');
    expect(await deliveryJobs(), 'a failed run checks no alert').to.equal(queued);
    const page = await web.get('/dashboards/pat/counts');
    expect(page.text).to.match(/<strong>Refreshes are failing<\/strong>: 2 runs in a row since [^;]+; the page shows the last good render\. Last error: query &quot;counts&quot;: query failed: division by zero/);
    await deleteOther('fifth');
    expect(await refresh()).to.equal('success');
    expect(ownerNotices()).to.deep.equal(['Refresh failing: counts', 'Refresh recovered: counts']);
    expect(smtp.mails.find((m) => m.subject === 'Refresh recovered: counts')!.text).to.include('after 2 failed runs in a row');
    expect(await refresh()).to.equal('success');
    expect(ownerNotices()).to.have.length(2);
    expect((await web.get('/dashboards/pat/counts')).text).to.not.include('Refreshes are failing');
  });

  it('shows another owner nothing of the alerts or the failure streak: the missing dashboard\'s answers', async () => {
    const { container } = server.server.app;
    const eve = new WebClient(server.url, server.hosts.app);
    const form = await eve.get('/sign-up');
    expect((await eve.post('/sign-up', { csrf: csrfOf(form), handle: 'eve', email: 'eve@example.com', password: 'correct horse battery' })).status).to.equal(303);
    const eveId = (await container.get<AccountStore>(AccountStore).findUserByHandle('eve'))!.id;
    const answer = await tools.call(aPrincipal(eveId), 'get_dashboard', { slug: 'counts' });
    expect(answer.isError).to.equal(true);
    expect(text(answer)).to.include('No dashboard named "counts"').and.not.include('many');
    const [page, missing] = [await eve.get('/dashboards/pat/counts'), await eve.get('/dashboards/pat/no-such-dashboard')];
    expect(page.status).to.equal(404);
    expect(page.text).to.equal(missing.text);
  });
});
