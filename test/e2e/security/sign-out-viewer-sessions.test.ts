import { expect } from 'chai';
import { AdminAccounts } from '../../../application/accounts/admin-accounts.js';
import { PublishDashboard } from '../../../application/dashboards/publish-dashboard.js';
import { buildContainer, type AppContainer } from '../../../shells/container.js';
import { createMigratedTestDatabase, type TestDatabase } from '../../support/database.js';
import { request, type HttpResponse } from '../../support/http.js';
import { aPrincipal, workspaceLock } from '../../support/mothers.js';
import { csrfOf, WebClient } from '../../support/oauth-server.js';
import { spawnServer } from '../../support/server.js';
import { testSettings, TEST_SECRET_KEY } from '../../support/settings.js';

type Spawned = Awaited<ReturnType<typeof spawnServer>>;

const cookiesOf = (res: HttpResponse) =>
  Object.fromEntries((res.headers['set-cookie'] ?? []).map((line) => line.split(';')[0]!.split('=') as [string, string]));

/**
 * Issue 30, item 7: signing out of the web app must end the user's viewer sessions on every dashboards host,
 * on every process. Two `dashpub serve` processes share one PostgreSQL; carol signs in on the first, holds
 * viewer sessions on two dashboards hosts of the second (and one of the first), and signs out on the first.
 */
describe('e2e security: signing out ends viewer sessions on every host and process', function () {
  this.timeout(180_000);
  let database: TestDatabase;
  let servers: Spawned[] = [];
  let admin: AppContainer;

  before(async () => {
    database = await createMigratedTestDatabase();
    const env = { DATABASE_URL: database.url, REDIS_URL: '', SECRET_KEY: TEST_SECRET_KEY };
    servers = await Promise.all([spawnServer(env, 60_000), spawnServer(env, 60_000)]);
    admin = await buildContainer(testSettings({ databaseUrl: database.url }), { role: 'cli', refreshWorkers: false });
  });

  after(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await admin?.close();
    await database?.drop();
  });

  /** The browser's viewer round trip on `server`'s dashboards host `sub`, with the web session `session`. */
  async function viewerCookie(server: Spawned, sub: string, path: string, session: string): Promise<string> {
    const host = server.hosts.dashboard(sub);
    const first = await request({ url: `${server.url}${path}`, host, headers: { accept: 'text/html' } });
    expect(first.status).to.equal(302);
    const state = cookiesOf(first).dashpub_viewer_state!;
    const toApp = new URL(first.headers.location!);
    const issued = await request({ url: `${server.url}${toApp.pathname}${toApp.search}`, host: server.hosts.app, headers: { cookie: `dashpub_session=${session}` } });
    const ticket = new URL(issued.headers.location!);
    expect(ticket.pathname).to.equal('/_auth');
    const exchanged = await request({ url: `${server.url}${ticket.pathname}${ticket.search}`, host, headers: { cookie: `dashpub_viewer_state=${state}` } });
    expect(exchanged.status).to.equal(302);
    return `dashpub_viewer=${cookiesOf(exchanged).dashpub_viewer!}`;
  }

  const view = (server: Spawned, sub: string, path: string, cookie: string) => request({ url: `${server.url}${path}`, host: server.hosts.dashboard(sub), headers: { cookie } });

  /** Waits for the other process to hear of the sign-out; the answer it settles on is what the test asserts. */
  async function settled(server: Spawned, sub: string, path: string, cookie: string): Promise<HttpResponse> {
    let res = await view(server, sub, path, cookie);
    for (let i = 0; i < 200 && res.status === 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      res = await view(server, sub, path, cookie);
    }
    return res;
  }

  it('refuses every viewer cookie of the user after sign-out, on the process signed out on and on the other', async () => {
    const [one, other] = servers as [Spawned, Spawned];
    const web = new WebClient(one.url, one.hosts.app);
    const form = await web.get('/sign-up');
    const signedUp = await web.post('/sign-up', { csrf: csrfOf(form), handle: 'carol', email: 'carol@example.com', password: 'correct horse battery', return_to: '/account' });
    expect(signedUp.status).to.equal(303);
    const session = web.cookies.get('dashpub_session')!;

    const accounts = admin.container.get(AdminAccounts);
    const carol = await accounts.userByHandle('carol');
    const acme = await accounts.addWorkspace({ slug: 'acme', name: 'Acme' });
    await accounts.addMember({ workspace: 'acme', handle: 'carol' });
    const publish = admin.container.get(PublishDashboard);
    await publish.execute(aPrincipal(carol.id, { grantId: 'p' }), { path: 'diary', body: '<p>carol diary</p>', visibility: 'private' });
    await publish.execute(aPrincipal(carol.id, { grantId: 'w', lock: workspaceLock(acme) }), { path: 'plans', body: '<p>acme plans</p>', visibility: 'private' });

    const held = [
      { server: other, sub: 'carol', path: '/diary', text: '<p>carol diary</p>' },
      { server: other, sub: 'acme', path: '/plans', text: '<p>acme plans</p>' },
      { server: one, sub: 'acme', path: '/plans', text: '<p>acme plans</p>' },
    ];
    const cookies: string[] = [];
    for (const h of held) {
      const cookie = await viewerCookie(h.server, h.sub, h.path, session);
      cookies.push(cookie);
      // Twice: the second answer may come from the process's memory of the session.
      for (let i = 0; i < 2; i++) expect((await view(h.server, h.sub, h.path, cookie)).text).to.equal(h.text);
    }

    const account = await web.get('/account');
    const out = await web.post('/sign-out', { csrf: csrfOf(account) });
    expect(out.status).to.equal(303);
    expect((await web.get('/account')).headers.location).to.contain('/sign-in');

    // The process that signed out refuses at once; the other once it has heard.
    const here = await view(one, 'acme', '/plans', cookies[2]!);
    expect([here.status, here.text]).to.not.deep.equal([200, '<p>acme plans</p>']);
    expect(here.status).to.equal(404);
    for (const [i, h] of held.entries()) {
      const res = await settled(h.server, h.sub, h.path, cookies[i]!);
      expect(res.status, `${h.sub}${h.path}`).to.equal(404);
      expect(res.text).to.not.contain(h.text);
    }
  });
});
