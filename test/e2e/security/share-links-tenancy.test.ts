import { expect } from 'chai';
import pg from 'pg';
import { AdminAccounts } from '../../../application/accounts/admin-accounts.js';
import { PublishDashboard } from '../../../application/dashboards/publish-dashboard.js';
import { ManageShareLinks } from '../../../application/sharing/manage-share-links.js';
import { createMigratedTestDatabase, type TestDatabase } from '../../support/database.js';
import { aPrincipal, workspaceLock } from '../../support/mothers.js';
import { csrfOf, expectEachAnsweredAsMissing, WebClient } from '../../support/oauth-server.js';
import { startFullServer } from '../../support/server.js';

const PASSWORD = 'correct horse battery staple';
const OPERATOR = { kind: 'operator' } as const;

/**
 * Issue 32: the web app's share-link forms across tenants, over HTTP against PostgreSQL. Another user, and a
 * workspace member who is not its admin, get the one "not found" page for every form on a dashboard or link
 * that is not theirs to manage, and see no links; a form without its CSRF token is refused; a label is text.
 */
describe('e2e security: share links in the web app across tenants', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let server: Awaited<ReturnType<typeof startFullServer>>;
  let links: ManageShareLinks;
  let ada: WebClient;
  let bob: WebClient;
  let carol: WebClient;
  let adaSales: string;
  let adaReport: string;
  let acmePlan: string;

  const signIn = async (email: string) => {
    const web = new WebClient(server.url, server.hosts.app);
    const form = await web.get('/sign-in');
    expect((await web.post('/sign-in', { csrf: csrfOf(form), email, password: PASSWORD, return_to: '/dashboards' })).status).to.equal(303);
    return web;
  };
  const csrf = async (web: WebClient) => csrfOf(await web.get('/account'));
  /** Every link's id and paused flag, as the operator sees them. */
  const snapshot = async () => {
    const all = [...(await links.list(OPERATOR, { owner: 'ada' })), ...(await links.list(OPERATOR, { workspace: 'acme' }))];
    return all.map((l) => `${l.link.id}:${l.status}`).sort();
  };

  before(async () => {
    database = await createMigratedTestDatabase();
    server = await startFullServer({ DATABASE_URL: database.url, SECRET_KEY: 'share-links-tenancy-secret', REDIS_URL: '' });
    const container = server.server.app.container;
    const admin = container.get(AdminAccounts);
    const adaUser = await admin.addUser({ handle: 'ada', email: 'ada@example.com', password: PASSWORD });
    const bobUser = await admin.addUser({ handle: 'bob', email: 'bob@example.com', password: PASSWORD });
    await admin.addUser({ handle: 'carol', email: 'carol@example.com', password: PASSWORD });
    const acme = await admin.addWorkspace({ slug: 'acme', name: 'Acme' });
    await admin.addMember({ workspace: 'acme', handle: 'ada', role: 'admin' });
    await admin.addMember({ workspace: 'acme', handle: 'carol' });
    const publish = container.get(PublishDashboard);
    await publish.execute(aPrincipal(adaUser.id), { path: 'sales', body: '<p>sales</p>', visibility: 'private' });
    await publish.execute(aPrincipal(adaUser.id), { path: 'report', body: '<p>report</p>' });
    await publish.execute(aPrincipal(adaUser.id, { lock: workspaceLock(acme) }), { path: 'plan', body: '<p>plan</p>' });
    await publish.execute(aPrincipal(bobUser.id), { path: 'mine', body: '<p>mine</p>' });
    links = container.get(ManageShareLinks);
    const person = { kind: 'person', userId: adaUser.id } as const;
    adaSales = (await links.create(person, { ownerName: 'ada' }, 'sales', { label: 'sales link' })).link.id;
    adaReport = (await links.create(person, { ownerName: 'ada' }, 'report', { label: 'report link' })).link.id;
    acmePlan = (await links.create(person, { ownerName: 'acme' }, 'plan', { label: 'plan link' })).link.id;
    [ada, bob, carol] = await Promise.all(['ada', 'bob', 'carol'].map((name) => signIn(`${name}@example.com`)));
  });

  after(async () => {
    await server?.close();
    await database?.drop();
  });

  const attempts = () => [
    ['/dashboards/ada/sales/share', { label: 'mine now' }],
    ['/dashboards/acme/plan/share', { label: 'mine now' }],
    [`/dashboards/ada/sales/share/${adaSales}/pause`, {}],
    [`/dashboards/ada/sales/share/${adaSales}/revoke`, {}],
    [`/dashboards/acme/plan/share/${acmePlan}/pause`, {}],
    [`/dashboards/acme/plan/share/${acmePlan}/resume`, {}],
    [`/dashboards/acme/plan/share/${acmePlan}/revoke`, {}],
    // Someone else's link id under one's own dashboard's address.
    [`/dashboards/bob/mine/share/${adaSales}/revoke`, {}],
    [`/dashboards/bob/mine/share/${acmePlan}/pause`, {}],
  ] as const;

  it('another user gets the missing-dashboard page for every share form on a dashboard or link not theirs, and nothing changes', async () => {
    const before = await snapshot();
    const missing = await bob.get('/dashboards/ada/no-such-dashboard');
    expect(missing.status).to.equal(404);
    const token = await csrf(bob);
    await expectEachAnsweredAsMissing(bob, missing, token, attempts());
    expect(await snapshot()).to.deep.equal(before);
    // Bob's own dashboard still works for him, and lists none of Ada's links.
    const own = await bob.get('/dashboards/bob/mine');
    expect(own.status).to.equal(200);
    expect(own.text).to.contain('No share links yet.').and.not.contain(adaSales).and.not.contain('sales link');
  });

  it('a workspace member who is not its admin sees the dashboard without links or forms, and gets the missing page for every share form', async () => {
    const page = await carol.get('/dashboards/acme/plan');
    expect(page.status).to.equal(200);
    expect(page.text).to.contain("managed by the workspace's admins").and.not.contain(acmePlan).and.not.contain('plan link').and.not.contain('/share');
    const missing = await carol.get('/dashboards/acme/no-such-dashboard');
    const before = await snapshot();
    const token = await csrf(carol);
    await expectEachAnsweredAsMissing(carol, missing, token, attempts().filter(([p]) => p.startsWith('/dashboards/acme/')));
    expect(await snapshot()).to.deep.equal(before);
  });

  it('the owner: a link named under another of their dashboards or malformed is not found; a form without its CSRF token is refused', async () => {
    const missing = await ada.get('/dashboards/ada/no-such-dashboard');
    const before = await snapshot();
    const token = await csrf(ada);
    await expectEachAnsweredAsMissing(ada, missing, token, [`/dashboards/ada/sales/share/${adaReport}/pause`, `/dashboards/acme/plan/share/${adaSales}/revoke`, '/dashboards/ada/sales/share/not-a-link/pause', '/dashboards/ada/nothing/share'].map((pathname) => [pathname, {}] as const));
    for (const [pathname, fields] of [['/dashboards/ada/sales/share', { label: 'forged' }], [`/dashboards/ada/sales/share/${adaSales}/revoke`, {}]] as const) {
      expect((await ada.post(pathname, { ...fields })).status, pathname).to.equal(403);
      expect((await ada.post(pathname, { csrf: 'forged', ...fields })).status, pathname).to.equal(403);
    }
    expect(await snapshot()).to.deep.equal(before);
    // The same forms with the token work (the refusals above were about the token).
    expect((await ada.post(`/dashboards/ada/sales/share/${adaSales}/pause`, { csrf: token })).status).to.equal(303);
    expect((await ada.post(`/dashboards/acme/plan/share/${acmePlan}/pause`, { csrf: token })).status).to.equal(303);
    expect(await snapshot()).to.not.deep.equal(before);
  });

  it('a label is shown as text, a password never comes back, and an expired link is listed as expired', async () => {
    const token = await csrf(ada);
    const created = await ada.post('/dashboards/ada/report/share', { csrf: token, label: '<script>alert(1)</script><img src=x onerror=alert(2)>', expires: 'never' });
    expect(created.status).to.equal(200);
    expect(created.text).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;').and.not.contain('<script>alert(1)');
    const refused = await ada.post('/dashboards/ada/report/share', { csrf: token, label: 'x', password: 'pw-Zq9' });
    expect(refused.status).to.equal(400);
    expect(refused.text).to.contain('password must be at least 10 characters').and.not.contain('pw-Zq9');
    const crafted = await ada.post('/dashboards/ada/report/share', { csrf: token, expires: '-1d' });
    expect(crafted.status).to.equal(400);
    expect(crafted.text).to.contain('expiry must be one of the listed choices');

    await sql(`UPDATE share_links SET expires_at = now() - interval '1 hour' WHERE id = '${adaReport}'`);
    const page = await ada.get('/dashboards/ada/report');
    const row = page.text.split('<tr>').find((r) => r.includes('report link'))!;
    expect(row).to.contain('>expired<').and.contain(`/share/${adaReport}/revoke`).and.not.contain(`/share/${adaReport}/pause`).and.not.contain(`/share/${adaReport}/resume`);
  });

  async function sql(text: string): Promise<void> {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      await client.query(text);
    } finally {
      await client.end();
    }
  }
});
