import { expect } from 'chai';
import { AccountStore } from '../../application/ports/account-store.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { spawnDashpub } from '../support/cli.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { request } from '../support/http.js';
import { csrfOf, WebClient } from '../support/oauth-server.js';
import { spawnServer } from '../support/server.js';
import { testSettings, TEST_SECRET_KEY } from '../support/settings.js';
import { mintAccessToken } from '../support/tokens.js';

type Spawned = Awaited<ReturnType<typeof spawnServer>>;

/** How long another process may go on accepting a revoked token (the bound). */
const PROPAGATION_MS = 1000;

async function toolsList(server: Spawned, token: string): Promise<number> {
  const res = await request({
    url: `${server.url}/mcp`,
    method: 'POST',
    host: server.hosts.api,
    headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  });
  return res.status;
}

/** Polls until the server refuses the token; answers how long that took after `since`. */
async function refusedWithin(server: Spawned, token: string, since: number): Promise<number> {
  for (;;) {
    const status = await toolsList(server, token);
    const elapsed = Date.now() - since;
    if (status === 401) return elapsed;
    expect(status).to.equal(200);
    if (elapsed > 5 * PROPAGATION_MS) return elapsed;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * Each process remembers verified tokens (docs/decisions/0038-token-cache.md); a revocation made
 * anywhere must still stop a token everywhere at once. Two `dashpub serve` processes on one PostgreSQL:
 * the token is used on both first (so both remember it), revoked through one process or the CLI, and
 * the other must refuse it within a second.
 */
describe('e2e: revocation reaches every dashpub serve process (PostgreSQL)', function () {
  this.timeout(180_000);
  let database: TestDatabase;
  let servers: Spawned[] = [];
  let admin: AppContainer;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    database = await createMigratedTestDatabase();
    env = { DATABASE_URL: database.url, REDIS_URL: '', SECRET_KEY: TEST_SECRET_KEY };
    servers = await Promise.all([spawnServer(env, 60_000), spawnServer(env, 60_000)]);
    // Tokens are minted for the first server's resource, so it accepts their refresh tokens.
    admin = await buildContainer(testSettings({ databaseUrl: database.url, baseUrl: servers[0]!.settings.baseUrl }), { role: 'cli', refreshWorkers: false });
  });

  after(async () => {
    await Promise.all(servers.map((server) => server.close()));
    await admin?.close();
    await database?.drop();
  });

  async function usedEverywhere(handle: string) {
    const accounts = admin.container.get<AccountStore>(AccountStore);
    const user = (await accounts.findUserByHandle(handle)) ?? (await accounts.createUser({ handle, email: `${handle}@example.com`, passwordHash: null, plan: 'free' }));
    const minted = await mintAccessToken(admin.container, { userId: user.id });
    for (const server of servers) for (let i = 0; i < 3; i++) expect(await toolsList(server, minted.access_token)).to.equal(200);
    return minted;
  }

  it('refuses a token everywhere within a second of `dashpub grant revoke`', async () => {
    const minted = await usedEverywhere('cli-revoked');
    const revoked = await spawnDashpub(env, ['grant', 'revoke', minted.grantId]);
    expect(revoked.code, revoked.stderr).to.equal(0);
    const done = Date.now();
    for (const server of servers) expect(await refusedWithin(server, minted.access_token, done)).to.be.at.most(PROPAGATION_MS);
  });

  it('refuses a token on the other process within a second of a revoke on the account page', async () => {
    const [one, other] = servers as [Spawned, Spawned];
    const web = new WebClient(one.url, one.hosts.app);
    const form = await web.get('/sign-up');
    const signedUp = await web.post('/sign-up', { csrf: csrfOf(form), handle: 'page-revoked', email: 'page-revoked@example.com', password: 'correct horse battery', return_to: '/account' });
    expect(signedUp.status).to.equal(303);
    const minted = await usedEverywhere('page-revoked');

    const account = await web.get('/account');
    expect(account.text).to.contain(`name="grant" value="${minted.grantId}"`);
    const res = await web.post('/account/grants/revoke', { csrf: csrfOf(account), grant: minted.grantId });
    expect([res.status, res.headers.location]).to.deep.equal([303, '/account?revoked=1']);
    const done = Date.now();
    expect(await toolsList(one, minted.access_token)).to.equal(401);
    expect(await refusedWithin(other, minted.access_token, done)).to.be.at.most(PROPAGATION_MS);
  });

  it('refuses a token on the other process within a second of refresh-token reuse revoking its grant', async () => {
    const [one, other] = servers as [Spawned, Spawned];
    const minted = await usedEverywhere('reuse-revoked');
    const refresh = () =>
      request({
        url: `${one.url}/token`,
        method: 'POST',
        host: one.hosts.api,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: minted.refresh_token, client_id: minted.clientId }).toString(),
      });
    // The current token rotates; the previous one may be retried once (a lost answer); a third use is reuse.
    expect((await refresh()).status).to.equal(200);
    expect((await refresh()).status).to.equal(200);
    const reused = await refresh();
    const done = Date.now();
    expect(reused.status).to.equal(400);
    expect(reused.json()).to.deep.include({ error: 'invalid_grant', error_description: 'refresh token reused: the authorization is revoked' });
    expect(await toolsList(one, minted.access_token)).to.equal(401);
    expect(await refusedWithin(other, minted.access_token, done)).to.be.at.most(PROPAGATION_MS);
  });
});
