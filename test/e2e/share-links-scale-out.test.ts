import { expect } from 'chai';
import { AdminAccounts } from '../../application/accounts/admin-accounts.js';
import { PublishDashboard } from '../../application/dashboards/publish-dashboard.js';
import { ManageShareLinks } from '../../application/sharing/manage-share-links.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { spawnDashpub } from '../support/cli.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { cookiePairs } from '../support/hosting-http.js';
import { request } from '../support/http.js';
import { aPrincipal, workspaceLock } from '../support/mothers.js';
import { csrfOf, WebClient } from '../support/oauth-server.js';
import { spawnServer, type SpawnedServer } from '../support/server.js';
import { testSettings } from '../support/settings.js';

/** How long another process may go on honouring a revoked link (as for revoked tokens, decision 0038). */
const PROPAGATION_MS = 1000;
const PASSWORD = 'scale out secret 7';

/**
 * Two `dashpub serve` processes on one database: a link revoked elsewhere is refused by both at once,
 * and neither process's log (at debug, where every dashboards request is logged) holds a token or password.
 */
describe('e2e: share links across two dashpub serve processes', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let seeder: AppContainer;
  let servers: SpawnedServer[] = [];

  before(async () => {
    database = await createMigratedTestDatabase();
    seeder = await buildContainer(testSettings({ databaseUrl: database.url }), { refreshWorkers: false });
    const admin = seeder.container.get(AdminAccounts);
    const user = await admin.addUser({ handle: 'vera', email: 'vera@example.com', password: 'vera password 1' });
    const workspace = await admin.addWorkspace({ slug: 'acme', name: 'Acme' });
    await admin.addMember({ workspace: 'acme', handle: 'vera', role: 'admin' });
    await seeder.container.get(PublishDashboard).execute(aPrincipal(user.id, { lock: workspaceLock(workspace) }), { path: 'plan', body: '<p id="plan">acme plan</p>' });
    const env = { DATABASE_URL: database.url, REDIS_URL: '', LOG_LEVEL: 'debug' };
    servers = await Promise.all([spawnServer(env), spawnServer(env)]);
  });

  after(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await seeder?.close();
    await database?.drop();
  });

  const get = (server: SpawnedServer, path: string, cookies: Record<string, string>, body?: string) =>
    request({
      url: `${server.url}${path}`,
      method: body === undefined ? 'GET' : 'POST',
      host: server.hosts.dashboard('acme'),
      headers: {
        accept: 'text/html',
        cookie: Object.entries(cookies).map(([k, v]) => `${k}=${v}`).join('; '),
        ...(body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      body,
    });

  /** The password round trip on `server`: the share session cookie. */
  async function openWithPassword(server: SpawnedServer, token: string): Promise<Record<string, string>> {
    const pending = cookiePairs((await get(server, `/_share/${token}`, {})).headers);
    const csrf = /name="csrf" value="([^"]+)"/.exec((await get(server, '/_share', pending)).text)![1]!;
    const opened = await get(server, '/_share', pending, new URLSearchParams({ csrf, password: PASSWORD }).toString());
    expect(opened.status).to.equal(303);
    return { dashpub_share_plan: cookiePairs(opened.headers)['dashpub_share_plan']! };
  }

  async function refusedWithin(server: SpawnedServer, cookies: Record<string, string>, since: number): Promise<number> {
    for (;;) {
      const res = await get(server, '/plan', cookies);
      const elapsed = Date.now() - since;
      if (res.status !== 200) return elapsed;
      if (elapsed > 5 * PROPAGATION_MS) return elapsed;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  it('revoking ends access on both processes, for a session opened on the other one', async () => {
    const created = await seeder.container.get(ManageShareLinks).create({ kind: 'operator' }, { workspace: 'acme' }, 'plan', { password: PASSWORD });
    const [first, second] = servers as [SpawnedServer, SpawnedServer];
    const cookies = await openWithPassword(first, created.token);
    // Both processes remember the session now.
    for (const server of servers) expect((await get(server, '/plan', cookies)).text).to.include('acme plan');
    // Revoked by a third process, the operator's CLI.
    const revoked = await spawnDashpub({ DATABASE_URL: database.url }, ['share', 'revoke', created.link.id]);
    expect(revoked.code, revoked.stderr).to.equal(0);
    const since = Date.now();
    expect(await refusedWithin(first, cookies, since)).to.be.below(PROPAGATION_MS);
    expect(await refusedWithin(second, cookies, since)).to.be.below(PROPAGATION_MS);
    expect((await get(second, `/_share/${created.token}`, {})).status).to.equal(404);

    await expectNoSecretsLogged([created.token, PASSWORD, cookies.dashpub_share_plan!]);
  });

  it('a link revoked on one process’s dashboard page is refused by that process at once and by the other at its next request', async () => {
    const created = await seeder.container.get(ManageShareLinks).create({ kind: 'operator' }, { workspace: 'acme' }, 'plan', {});
    const [one, other] = servers as [SpawnedServer, SpawnedServer];
    const opened = await get(other, `/_share/${created.token}`, {});
    const cookies = { dashpub_share_plan: cookiePairs(opened.headers)['dashpub_share_plan']! };
    for (const server of servers) expect((await get(server, '/plan', cookies)).status).to.equal(200);

    const web = new WebClient(one.url, one.hosts.app);
    const signedIn = await web.post('/sign-in', { csrf: csrfOf(await web.get('/sign-in')), email: 'vera@example.com', password: 'vera password 1', return_to: '/dashboards' });
    expect(signedIn.status).to.equal(303);
    const page = await web.get('/dashboards/acme/plan');
    const revoked = await web.post(`/dashboards/acme/plan/share/${created.link.id}/revoke`, { csrf: csrfOf(page) });
    expect(revoked.status).to.equal(303);
    const since = Date.now();
    expect((await get(one, '/plan', cookies)).status).to.equal(302);
    expect(await refusedWithin(other, cookies, since)).to.be.below(PROPAGATION_MS);
  });

  async function expectNoSecretsLogged(secrets: string[]) {
    for (const server of servers) {
      // The log is written asynchronously: wait for the line of the last request.
      for (let i = 0; i < 100 && !server.output().includes('/_share/…'); i++) await new Promise((resolve) => setTimeout(resolve, 20));
      const log = server.output();
      expect(log).to.include('/_share/…');
      for (const secret of secrets) expect(log).to.not.include(secret);
    }
  }
});
