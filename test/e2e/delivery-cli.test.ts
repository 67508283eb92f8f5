import { expect } from 'chai';
import { AccountStore } from '../../application/ports/account-store.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { runDashpub, spawnDashpub, type CliRun } from '../support/cli.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { readmeSignatureSnippet, startSmtpReceiver, startWebhookReceiver, type MailReceiver, type VerifySignature, type WebhookReceiver } from '../support/delivery-receivers.js';
import { request } from '../support/http.js';
import { aPrincipal, aUser, aWorkspace, workspaceLock } from '../support/mothers.js';
import { registry } from '../support/refresh-fixtures.js';
import { startFullServer, type FullServer } from '../support/server.js';
import { testSettings } from '../support/settings.js';

const ID = /^[0-9a-f-]{36}$/;

/** `dashpub subscription …` through runCli (once as the binary) against PostgreSQL, a local webhook receiver and a real SMTP server. */
describe('e2e: dashpub subscription (webhook, Slack, email, unsubscribe)', function () {
  this.timeout(240_000);
  let database: TestDatabase;
  let app: AppContainer;
  let server: FullServer;
  let hook: WebhookReceiver;
  let smtp: MailReceiver;
  let verify: VerifySignature;
  let env: NodeJS.ProcessEnv;
  const runs: CliRun[] = [];
  /** In-process unless `cli` says otherwise (spawnDashpub, for the binary itself). */
  const run = async (args: string[], cli = runDashpub) => {
    const result = await cli(env, args);
    runs.push(result);
    return result;
  };
  const ok = async (args: string[], cli = runDashpub) => {
    const result = await run([...args, '--json'], cli);
    expect(result.code, result.stderr).to.equal(0);
    return JSON.parse(result.stdout);
  };
  const refusal = async (args: string[]) => {
    const result = await run(args);
    expect(result.code, result.stdout).to.equal(1);
    return result.stderr.trim();
  };

  before(async () => {
    database = await createMigratedTestDatabase();
    [hook, smtp, verify] = [await startWebhookReceiver(), await startSmtpReceiver(), await readmeSignatureSnippet()];
    env = { DATABASE_URL: database.url, REDIS_URL: '', ALLOW_PRIVATE_WEBHOOKS: 'true', SMTP_URL: smtp.url, MAIL_FROM: 'dashpub <reports@example.com>' };
    app = await buildContainer(testSettings({ databaseUrl: database.url }), { role: 'cli' });
    const accounts = app.container.get<AccountStore>(AccountStore);
    const ada = await aUser(accounts, { handle: 'ada' });
    const carol = await aUser(accounts, { handle: 'carol' });
    const acme = await aWorkspace(accounts, { slug: 'acme' });
    await accounts.addMember(acme.id, ada.id, 'admin');
    await accounts.addMember(acme.id, carol.id, 'member');
    const tools = registry(app.container);
    expect((await tools.call(aPrincipal(ada.id), 'publish_dashboard', { path: 'sales', body: '<h1>Sales</h1>' })).isError).to.not.equal(true);
    expect((await tools.call(aPrincipal(ada.id, { lock: workspaceLock(acme) }), 'publish_dashboard', { path: 'roadmap', body: '<p>team</p>' })).isError).to.not.equal(true);
    server = await startFullServer({ DATABASE_URL: database.url, REDIS_URL: '' });
  });
  after(async () => {
    await server?.close();
    await app?.close();
    await hook?.close();
    await smtp?.close();
    await database?.drop();
  });

  let webhookId: string;
  let secret: string;

  it('adds a generic webhook, shows its signing secret once and never its path', async () => {
    const added = await ok(['subscription', 'add', '--owner', 'ada', '--slug', 'sales', '--webhook', `${hook.url}/hooks/T0K3N-in-path`], spawnDashpub);
    expect(added).to.include({ slug: 'sales', channel: 'webhook', target: hook.url, status: 'active', when: 'after each scheduled refresh' });
    expect(added.id).to.match(ID);
    expect(added.secret).to.match(/^[A-Za-z0-9_-]{43}$/);
    [webhookId, secret] = [added.id, added.secret];
    const listed = await run(['subscription', 'list', '--owner', 'ada', '--slug', 'sales']);
    expect(listed.stdout).to.include(webhookId).and.not.include('T0K3N').and.not.include(secret);
    const json = await ok(['subscription', 'list', '--owner', 'ada']);
    expect(json.map((s: { id: string }) => s.id)).to.deep.equal([webhookId]);
    expect(JSON.stringify(json)).to.not.include(secret);
  });

  it('test-sends signed JSON that README\'s snippet verifies, and notices a forged signature', async () => {
    const tested = await ok(['subscription', 'test', webhookId]);
    expect(tested.outcome).to.deep.equal({ status: 'sent' });
    expect(hook.received).to.have.length(1);
    const post = hook.received[0]!;
    expect(post.path).to.equal('/hooks/T0K3N-in-path');
    const body = JSON.parse(post.body);
    expect(body).to.deep.include({ url: 'http://ada.dash.localhost:8787/sales', image_url: 'http://ada.dash.localhost:8787/_image/sales.png', alerts: [] });
    expect(body.dashboard).to.include({ slug: 'sales' });
    expect(body.version).to.match(ID);
    const [timestamp, signature] = [String(post.headers['x-dashpub-timestamp']), String(post.headers['x-dashpub-signature'])];
    expect(verify(secret, timestamp, post.body, signature)).to.equal(true);
    expect(verify(secret, timestamp, post.body.replace('"sales"', '"salez"'), signature)).to.equal(false);
    expect(verify('not-the-secret', timestamp, post.body, signature)).to.equal(false);
    expect(verify(secret, timestamp, post.body, `sha256=${'0'.repeat(64)}`)).to.equal(false);
    expect(verify(secret, String(Number(timestamp) - 3600), post.body, signature)).to.equal(false);
    expect(tested.last_delivered_at).to.be.a('string');
  });

  it('posts a Slack message with the link', async () => {
    const added = await ok(['subscription', 'add', '--owner', 'ada', '--slug', 'sales', '--slack-webhook', `${hook.url}/services/T000/B000/XXXX`, '--cron', '0 8 * * 1', '--timezone', 'Europe/Paris']);
    expect(added).to.include({ channel: 'slack', secret: null, when: '0 8 * * 1 (Europe/Paris)' });
    await ok(['subscription', 'test', added.id]);
    const post = hook.received.at(-1)!;
    expect(post.path).to.equal('/services/T000/B000/XXXX');
    const message = JSON.parse(post.body);
    expect(message.text).to.include('http://ada.dash.localhost:8787/sales');
    expect(JSON.stringify(message.blocks)).to.include('<http://ada.dash.localhost:8787/sales|');
    expect(post.headers).to.not.have.property('x-dashpub-signature');
    expect(message.blocks[1]).to.deep.include({ type: 'image', image_url: 'http://ada.dash.localhost:8787/_image/sales.png' });
  });

  it('sends a share link the owner picks instead of the canonical URL, while that link works', async () => {
    const share = await ok(['share', 'create', '--owner', 'ada', '--slug', 'sales', '--label', 'for the team']);
    const roadmap = await ok(['share', 'create', '--workspace', 'acme', '--slug', 'roadmap']);
    const add = (link: string) => ['subscription', 'add', '--owner', 'ada', '--slug', 'sales', '--webhook', `${hook.url}/via-share`, '--share-link', link];
    for (const wrong of [roadmap.url, 'https://ada.dash.localhost:8787/_share/not-a-token', 'whatever']) {
      expect(await refusal(add(wrong))).to.include('must be an active share link of this dashboard');
    }
    const added = await ok(add(share.url));
    expect(added).to.include({ link: 'share link' });
    await ok(['subscription', 'test', added.id]);
    expect(JSON.parse(hook.received.at(-1)!.body).url).to.equal(share.url);
    await ok(['share', 'revoke', share.id]);
    const failed = await run(['subscription', 'test', added.id, '--json']);
    expect(JSON.parse(failed.stdout).outcome.error).to.include('the share link this subscription sends was revoked');
    await ok(['subscription', 'remove', added.id]);
  });

  let emailId: string;
  let unsubscribeUrl: URL;

  it('emails the link and the refresh time with RFC 8058 one-click unsubscribe headers', async () => {
    const added = await ok(['subscription', 'add', '--owner', 'ada', '--slug', 'sales', '--email', 'Someone@Example.COM']);
    expect(added).to.include({ channel: 'email', target: 'Someone@example.com' });
    emailId = added.id;
    expect((await ok(['subscription', 'test', emailId])).outcome).to.deep.equal({ status: 'sent' });
    expect(smtp.mails).to.have.length(1);
    const mail = smtp.mails[0]!;
    expect(mail.from?.text).to.include('reports@example.com');
    expect((mail.to as { text: string }).text).to.equal('Someone@example.com');
    expect(mail.text).to.include('http://ada.dash.localhost:8787/sales').and.include('Last refreshed:');
    expect(mail.html).to.include('href="http://ada.dash.localhost:8787/sales"').and.include('src="cid:dashboard-image@dashpub"');
    // The dashboard's picture (a page published as a body: its card), embedded by cid and attached.
    const png = Buffer.from('89504e470d0a1a0a', 'hex');
    const inline = mail.attachments.find((a) => a.related);
    const attached = mail.attachments.find((a) => a.contentDisposition === 'attachment');
    expect(inline?.cid).to.equal('dashboard-image@dashpub');
    expect(inline?.content.subarray(0, 8).equals(png)).to.equal(true);
    expect(attached?.filename).to.equal('sales.png');
    expect(attached?.content.equals(inline!.content)).to.equal(true);
    const line = (key: string) => mail.headerLines.find((h) => h.key === key)?.line ?? '';
    expect(line('list-unsubscribe-post')).to.equal('List-Unsubscribe-Post: List-Unsubscribe=One-Click');
    const header = line('list-unsubscribe');
    const match = /(http:\/\/app\.localhost:8787\/_unsubscribe\/[A-Za-z0-9_-]+)/.exec(header);
    expect(match, header).to.not.equal(null);
    unsubscribeUrl = new URL(match![1]!);
    expect(mail.text).to.include(unsubscribeUrl.href);
  });

  it('unsubscribes with one POST and no sign-in (a GET only asks), once; the next delivery is not sent', async () => {
    const at = { url: `${server.url}${unsubscribeUrl.pathname}`, host: server.hosts.app };
    const asked = await request(at);
    expect(asked.status).to.equal(200);
    expect(asked.text).to.include('<form method="post"');
    expect((await ok(['subscription', 'list', '--owner', 'ada'])).map((s: { id: string }) => s.id)).to.include(emailId);
    const done = await request({ ...at, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(done.status).to.equal(200);
    expect(done.text).to.include('Someone@example.com will get no more emails');
    const again = await request({ ...at, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    expect(again.status).to.equal(400);
    expect(again.text).to.include('not valid, or was already used');
    expect((await ok(['subscription', 'list', '--owner', 'ada'])).map((s: { id: string }) => s.id)).to.not.include(emailId);
    expect(await refusal(['subscription', 'test', emailId])).to.equal('error: No such subscription');
    expect(smtp.mails).to.have.length(1);
  });

  it('delivers a private dashboard by email only to the owner\'s workspace members', async () => {
    const outsider = await refusal(['subscription', 'add', '--workspace', 'acme', '--slug', 'roadmap', '--email', 'outsider@example.com']);
    expect(outsider).to.include('only to its owner\'s address or to members of its workspace');
    const member = await ok(['subscription', 'add', '--workspace', 'acme', '--slug', 'roadmap', '--email', 'carol@example.com']);
    expect(member).to.include({ slug: 'roadmap', target: 'carol@example.com' });
  });

  it('records each failure with its error and pauses after 10 in a row', async () => {
    hook.status = 500;
    for (let i = 1; i <= 10; i++) {
      const result = await run(['subscription', 'test', webhookId, '--json']);
      expect(result.code).to.equal(1);
      const json = JSON.parse(result.stdout);
      expect(json.outcome).to.deep.equal({ status: 'failed', error: 'the webhook answered HTTP 500', paused: i === 10 });
      expect(json.consecutive_failures).to.equal(i);
    }
    const [listed] = (await ok(['subscription', 'list', '--owner', 'ada', '--slug', 'sales'])).filter((s: { id: string }) => s.id === webhookId);
    expect(listed).to.include({ status: 'paused', consecutive_failures: 10, last_error: 'the webhook answered HTTP 500' });
    // The owner is told once, by email, on the failure that paused it.
    const notices = smtp.mails.filter((m) => m.subject === 'Delivery paused: sales');
    expect(notices.map((m) => (m.to as { text: string }).text)).to.deep.equal(['ada@example.com']);
    expect(notices[0]!.text).to.include('failed 10 times in a row and is paused').and.include('http://app.localhost:8787/dashboards/ada/sales#deliver');
    hook.status = 200;
  });

  it('a successful send resumes a paused subscription', async () => {
    const sent = await ok(['subscription', 'test', webhookId]);
    expect(sent).to.include({ status: 'active', consecutive_failures: 0 });
    expect(sent.outcome).to.deep.equal({ status: 'sent' });
  });

  it('removes a subscription by id', async () => {
    const removed = await ok(['subscription', 'remove', webhookId]);
    expect(removed).to.include({ id: webhookId, status: 'removed' });
    expect(await refusal(['subscription', 'remove', webhookId])).to.equal('error: No such subscription');
  });

  it('never prints a signing secret except when the webhook is added', () => {
    const printed = runs.filter((r) => r.stdout.includes(secret) || r.stderr.includes(secret));
    expect(printed).to.have.length(1);
  });
});
