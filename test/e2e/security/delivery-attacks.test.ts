import { expect } from 'chai';
import { AdminAccounts } from '../../../application/accounts/admin-accounts.js';
import { PublishDashboard } from '../../../application/dashboards/publish-dashboard.js';
import { ManageSubscriptions } from '../../../application/delivery/manage-subscriptions.js';
import { DeliverySecretSealer, UnsubscribeSealer } from '../../../application/ports/delivery-ports.js';
import type { SecretSealer } from '../../../application/ports/secret-sealer.js';
import { createMigratedTestDatabase, type TestDatabase } from '../../support/database.js';
import { request } from '../../support/http.js';
import { aPrincipal, workspaceLock } from '../../support/mothers.js';
import { csrfOf, expectEachAnsweredAsMissing, WebClient } from '../../support/oauth-server.js';
import { startFullServer } from '../../support/server.js';

const PASSWORD = 'correct horse battery staple';
const OPERATOR = { kind: 'operator' } as const;
/** A public address literal: adding it needs no DNS and nothing is sent in these tests. */
const PUBLIC_HOOK = 'https://93.184.215.14/hooks/abc';

/**
 * Issue 33: attacks on delivery over HTTP against PostgreSQL. Webhooks to loopback, private, link-local and
 * the service's own addresses are refused when added; unsubscribe links cannot be forged or reused; another
 * user, and a workspace member who is not its admin, get the missing-dashboard page for every Deliver form.
 */
describe('e2e security: delivery subscriptions', function () {
  this.timeout(90_000);
  let database: TestDatabase;
  let server: Awaited<ReturnType<typeof startFullServer>>;
  let manage: ManageSubscriptions;
  let ada: WebClient;
  let bob: WebClient;
  let carol: WebClient;
  let adaHook: string;
  let acmeHook: string;
  let adaEmail: string;

  const signIn = async (email: string) => {
    const web = new WebClient(server.url, server.hosts.app);
    const form = await web.get('/sign-in');
    expect((await web.post('/sign-in', { csrf: csrfOf(form), email, password: PASSWORD, return_to: '/dashboards' })).status).to.equal(303);
    return web;
  };
  const csrf = async (web: WebClient) => csrfOf(await web.get('/account'));
  const snapshot = async () => {
    const all = [...(await manage.list(OPERATOR, { owner: 'ada' })), ...(await manage.list(OPERATOR, { workspace: 'acme' }))];
    return all.map((s) => `${s.subscription.id}:${s.subscription.paused}`).sort();
  };

  before(async () => {
    database = await createMigratedTestDatabase();
    server = await startFullServer({ DATABASE_URL: database.url, SECRET_KEY: 'delivery-attacks-secret', REDIS_URL: '' });
    const container = server.server.app.container;
    const admin = container.get(AdminAccounts);
    const adaUser = await admin.addUser({ handle: 'ada', email: 'ada@example.com', password: PASSWORD });
    const bobUser = await admin.addUser({ handle: 'bob', email: 'bob@example.com', password: PASSWORD });
    await admin.addUser({ handle: 'carol', email: 'carol@example.com', password: PASSWORD });
    const acme = await admin.addWorkspace({ slug: 'acme', name: 'Acme' });
    await admin.addMember({ workspace: 'acme', handle: 'ada', role: 'admin' });
    await admin.addMember({ workspace: 'acme', handle: 'carol' });
    const publish = container.get(PublishDashboard);
    await publish.execute(aPrincipal(adaUser.id), { path: 'sales', body: '<p>sales</p>' });
    await publish.execute(aPrincipal(adaUser.id, { lock: workspaceLock(acme) }), { path: 'plan', body: '<p>plan</p>' });
    await publish.execute(aPrincipal(bobUser.id), { path: 'mine', body: '<p>mine</p>' });
    manage = container.get(ManageSubscriptions);
    adaHook = (await manage.add(OPERATOR, { owner: 'ada' }, 'sales', { channel: 'webhook', target: PUBLIC_HOOK })).subscription.id;
    adaEmail = (await manage.add(OPERATOR, { owner: 'ada' }, 'sales', { channel: 'email', target: 'ada@example.com' })).subscription.id;
    acmeHook = (await manage.add(OPERATOR, { workspace: 'acme' }, 'plan', { channel: 'slack', target: PUBLIC_HOOK })).subscription.id;
    [ada, bob, carol] = await Promise.all(['ada', 'bob', 'carol'].map((name) => signIn(`${name}@example.com`)));
  });
  after(async () => {
    await server?.close();
    await database?.drop();
  });

  it('refuses a webhook to loopback, private, link-local, unspecified or the service\'s own address when it is added', async () => {
    const token = await csrf(ada);
    const before = await snapshot();
    const forbidden = [
      'http://127.0.0.1:9/hook',
      'http://localhost/hook',
      'http://[::1]/hook',
      'http://169.254.169.254/latest/meta-data/',
      'http://10.1.2.3/hook',
      'http://192.168.0.10/hook',
      'http://0.0.0.0/hook',
      'http://[::ffff:127.0.0.1]/hook',
      `http://127.0.0.1:${server.port}/mcp`,
    ];
    for (const target of forbidden) {
      for (const channel of ['webhook', 'slack']) {
        const res = await ada.post('/dashboards/ada/sales/deliver', { csrf: token, channel, target });
        expect(res.status, target).to.equal(400);
        expect(res.text, target).to.contain('is not an address this service sends to');
      }
    }
    for (const target of ['file:///etc/passwd', 'gopher://127.0.0.1/', 'http://user:pw@93.184.215.14/']) {
      expect((await ada.post('/dashboards/ada/sales/deliver', { csrf: token, channel: 'webhook', target })).status, target).to.equal(400);
    }
    expect(await snapshot()).to.deep.equal(before);
  });

  const attempts = () => [
    ['/dashboards/ada/sales/deliver', { channel: 'webhook', target: PUBLIC_HOOK }],
    ['/dashboards/acme/plan/deliver', { channel: 'email', target: 'carol@example.com' }],
    [`/dashboards/ada/sales/deliver/${adaHook}/remove`, {}],
    [`/dashboards/ada/sales/deliver/${adaHook}/test`, {}],
    [`/dashboards/acme/plan/deliver/${acmeHook}/remove`, {}],
    [`/dashboards/acme/plan/deliver/${acmeHook}/test`, {}],
    // Someone else's subscription id under one's own dashboard's address.
    [`/dashboards/bob/mine/deliver/${adaHook}/remove`, {}],
    [`/dashboards/bob/mine/deliver/${acmeHook}/test`, {}],
  ] as const;

  it('another user gets the missing-dashboard page for every Deliver form not theirs, sees none of them, and nothing changes', async () => {
    const before = await snapshot();
    const missing = await bob.get('/dashboards/ada/no-such-dashboard');
    expect(missing.status).to.equal(404);
    const token = await csrf(bob);
    await expectEachAnsweredAsMissing(bob, missing, token, attempts());
    expect(await snapshot()).to.deep.equal(before);
    const own = await bob.get('/dashboards/bob/mine');
    expect(own.status).to.equal(200);
    expect(own.text).to.contain('No subscriptions yet.').and.not.contain(adaHook).and.not.contain('93.184.215.14');
  });

  it('a workspace member who is not its admin sees no subscriptions and gets the missing page for every Deliver form', async () => {
    const page = await carol.get('/dashboards/acme/plan');
    expect(page.status).to.equal(200);
    expect(page.text).to.contain("Deliveries of this workspace's dashboards are managed by the workspace's admins").and.not.contain(acmeHook).and.not.contain('/deliver');
    const missing = await carol.get('/dashboards/acme/no-such-dashboard');
    const before = await snapshot();
    const token = await csrf(carol);
    await expectEachAnsweredAsMissing(carol, missing, token, attempts().filter(([p]) => p.startsWith('/dashboards/acme/')));
    expect(await snapshot()).to.deep.equal(before);
  });

  it('the owner sees the section (email off while SMTP is unset), a secret once, and forms need their CSRF token', async () => {
    const page = await ada.get('/dashboards/ada/sales');
    expect(page.text).to.contain('id="deliver"').and.contain('Email delivery is off').and.contain(adaHook);
    const token = await csrf(ada);
    const added = await ada.post('/dashboards/ada/sales/deliver', { csrf: token, channel: 'webhook', target: 'https://93.184.215.14/other' });
    expect(added.status).to.equal(200);
    const secret = /id="deliver-secret"[^>]*value="([A-Za-z0-9_-]{43})"/.exec(added.text)?.[1];
    expect(secret, 'the secret on the answer page').to.be.a('string');
    expect((await ada.get('/dashboards/ada/sales')).text).to.not.contain(secret!);
    const before = await snapshot();
    expect((await ada.post('/dashboards/ada/sales/deliver', { channel: 'webhook', target: PUBLIC_HOOK })).status).to.equal(403);
    expect((await ada.post(`/dashboards/ada/sales/deliver/${adaHook}/remove`, { csrf: 'forged' })).status).to.equal(403);
    expect(await snapshot()).to.deep.equal(before);
    const script = await ada.post('/dashboards/ada/sales/deliver', { csrf: token, channel: 'email', target: '<script>alert(1)</script>@x.com' });
    expect(script.status).to.equal(400);
    expect(script.text).to.not.contain('<script>alert(1)</script>');
  });

  it('an unsubscribe link cannot be forged, made from another sealed value, used for a webhook, or used twice', async () => {
    const container = server.server.app.container;
    const tokenOf = (sealer: SecretSealer, text: string) => Buffer.from(sealer.seal(text), 'utf8').toString('base64url');
    const unsubscribe = container.get<SecretSealer>(UnsubscribeSealer);
    const post = (token: string) =>
      request({ url: `${server.url}/_unsubscribe/${token}`, host: server.hosts.app, method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    const valid = tokenOf(unsubscribe, adaEmail);
    const forged = [
      'A'.repeat(60),
      Buffer.from(`v1:${'x'.repeat(16)}:${'y'.repeat(22)}:${adaEmail}`).toString('base64url'),
      tokenOf(container.get<SecretSealer>(DeliverySecretSealer), adaEmail),
      tokenOf(unsubscribe, adaHook),
      valid.slice(0, -4),
      `${valid.slice(0, -2)}${valid.endsWith('AA') ? 'BB' : 'AA'}`,
    ];
    const before = await snapshot();
    for (const token of forged) {
      const res = await post(token);
      expect(res.status, token).to.equal(400);
      expect(res.text).to.contain('not valid, or was already used');
    }
    expect(await snapshot()).to.deep.equal(before);
    expect((await post(valid)).status).to.equal(200);
    const reused = await post(valid);
    expect(reused.status).to.equal(400);
    expect(reused.text).to.contain('not valid, or was already used');
    expect(await snapshot()).to.not.include(`${adaEmail}:false`);
  });
});
