import { expect } from 'chai';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { NodeSecretTokens } from '../../adapters/crypto/node-secret-tokens.js';
import { PgTokenInvalidations } from '../../adapters/postgres/pg-token-invalidations.js';
import { TypeormOAuthStore } from '../../adapters/postgres/typeorm-oauth-store.js';
import { CachingTokenVerifier } from '../../application/auth/cached-token-verifier.js';
import { OAuthTokenVerifier } from '../../application/auth/verify-access-token.js';
import { AccountStore } from '../../application/ports/account-store.js';
import { buildContainer, systemClock, type AppContainer } from '../../shells/container.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { freePort } from '../support/server.js';
import { testSettings } from '../support/settings.js';
import { mintAccessToken } from '../support/tokens.js';

const silent = { info: () => {}, warn: () => {} };

async function until(condition: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/**
 * The verified-token cache on PostgreSQL with its LISTEN connection: it answers from memory only while
 * that connection listens, and a revocation made straight in the database is seen at once either way.
 */
describe('adapters: verified-token cache and its invalidation channel (PostgreSQL)', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let admin: AppContainer;
  let sql: pg.Client;
  let listener: PgTokenInvalidations;
  let verifier: CachingTokenVerifier;
  let lookups = 0;

  before(async () => {
    database = await createMigratedTestDatabase();
    admin = await buildContainer(testSettings({ databaseUrl: database.url }), { role: 'cli', refreshWorkers: false });
    sql = new pg.Client({ connectionString: database.url });
    await sql.connect();
  });

  beforeEach(async () => {
    const store = new TypeormOAuthStore(admin.container.get(DataSource));
    const findAccessTokenForUse = store.findAccessTokenForUse.bind(store);
    store.findAccessTokenForUse = (hash) => {
      lookups++;
      return findAccessTokenForUse(hash);
    };
    const secrets = new NodeSecretTokens();
    // A long retry: the outage lasts until the test says otherwise.
    listener = new PgTokenInvalidations(database.url, silent, { retryMs: 60_000 });
    verifier = new CachingTokenVerifier(new OAuthTokenVerifier(store, secrets, systemClock), listener, secrets, systemClock);
    await listener.start();
    lookups = 0;
  });

  afterEach(() => listener.close());

  after(async () => {
    await sql?.end();
    await admin?.close();
    await database?.drop();
  });

  async function token(handle: string) {
    const user = await admin.container.get<AccountStore>(AccountStore).createUser({ handle, email: `${handle}@example.com`, passwordHash: null, plan: 'free' });
    return mintAccessToken(admin.container, { userId: user.id });
  }

  /** Ends the listener's connection from the server side, as a restart or a network cut would. */
  async function cutListener(): Promise<void> {
    const ended = await sql.query(
      `SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE datname = current_database() AND application_name = 'dashpub token invalidation'`,
    );
    expect(ended.rows.map((row: { ended: boolean }) => row.ended)).to.deep.equal([true]);
    await until(() => !listener.live, 'the listener notices');
  }

  it('verifies with one lookup, then answers from memory, with the handle read in the same lookup', async () => {
    const minted = await token('cached');
    expect(listener.live).to.equal(true);
    const first = await verifier.verify(minted.access_token);
    expect(first).to.deep.include({ grantId: minted.grantId, handle: 'cached' });
    expect(await verifier.verify(minted.access_token)).to.deep.equal(first);
    expect(lookups).to.equal(1);
  });

  it('hears a revocation made directly in the database and forgets the token', async () => {
    const minted = await token('heard');
    expect(await verifier.verify(minted.access_token)).to.not.equal(null);
    await sql.query(`UPDATE oauth_grants SET revoked_at = now(), revoked_reason = 'by hand' WHERE id = $1`, [minted.grantId]);
    await until(() => verifier.size === 0, 'the notification arrives');
    expect(await verifier.verify(minted.access_token)).to.equal(null);
  });

  it('bypasses the cache while the channel is down: a revocation made meanwhile is refused at once', async () => {
    const minted = await token('outage');
    expect(await verifier.verify(minted.access_token)).to.not.equal(null);
    expect(verifier.size).to.equal(1);

    await cutListener();
    expect(verifier.size).to.equal(0);
    lookups = 0;
    expect(await verifier.verify(minted.access_token)).to.not.equal(null);
    expect(await verifier.verify(minted.access_token)).to.not.equal(null);
    expect(lookups).to.equal(2);
    expect(verifier.size).to.equal(0);

    // Nobody hears this one: the only listener is down.
    await sql.query(`UPDATE oauth_grants SET revoked_at = now(), revoked_reason = 'during the outage' WHERE id = $1`, [minted.grantId]);
    expect(await verifier.verify(minted.access_token)).to.equal(null);
  });

  it('caches again once the channel is back, starting empty', async () => {
    await listener.close();
    listener = new PgTokenInvalidations(database.url, silent, { retryMs: 50 });
    const store = new TypeormOAuthStore(admin.container.get(DataSource));
    const secrets = new NodeSecretTokens();
    verifier = new CachingTokenVerifier(new OAuthTokenVerifier(store, secrets, systemClock), listener, secrets, systemClock);
    await listener.start();
    const minted = await token('back');
    expect(await verifier.verify(minted.access_token)).to.not.equal(null);
    await cutListener();
    await until(() => listener.live, 'the listener reconnects');
    expect(verifier.size).to.equal(0);
    expect(await verifier.verify(minted.access_token)).to.not.equal(null);
    expect(verifier.size).to.equal(1);
    await sql.query(`UPDATE oauth_grants SET revoked_at = now() WHERE id = $1`, [minted.grantId]);
    await until(() => verifier.size === 0, 'the notification arrives on the new connection');
    expect(await verifier.verify(minted.access_token)).to.equal(null);
  });

  it('starts bypassed when it cannot listen, and still verifies every call against the database', async () => {
    await listener.close();
    const port = await freePort();
    listener = new PgTokenInvalidations(`postgres://postgres@127.0.0.1:${port}/nowhere`, silent, { retryMs: 60_000 });
    const store = new TypeormOAuthStore(admin.container.get(DataSource));
    const secrets = new NodeSecretTokens();
    verifier = new CachingTokenVerifier(new OAuthTokenVerifier(store, secrets, systemClock), listener, secrets, systemClock);
    await listener.start();
    expect(listener.live).to.equal(false);
    const minted = await token('unheard');
    expect(await verifier.verify(minted.access_token)).to.not.equal(null);
    expect(verifier.size).to.equal(0);
    await sql.query(`UPDATE oauth_grants SET revoked_at = now() WHERE id = $1`, [minted.grantId]);
    expect(await verifier.verify(minted.access_token)).to.equal(null);
  });

  it('announces an access token changed by hand, and a deleted grant, but not a rotated refresh token', async () => {
    const minted = await token('triggers');
    const heard: string[] = [];
    listener.subscribe({ invalidated: (change) => heard.push(`${change.kind}:${change.id}`), reset: () => {} });
    await verifier.verify(minted.access_token);
    await sql.query(`UPDATE oauth_grants SET refresh_previous_retry_left = NOT refresh_previous_retry_left WHERE id = $1`, [minted.grantId]);
    // Notifications arrive in commit order: once this one is heard, one for the update would have been too.
    const barrier = 'grant:00000000-0000-0000-0000-000000000000';
    await sql.query(`SELECT pg_notify('dashpub_token_invalidation', $1)`, [barrier]);
    await until(() => heard.includes(barrier), 'the barrier is heard');
    expect(heard).to.deep.equal([barrier]);
    expect(verifier.size).to.equal(1);
    await sql.query(`UPDATE oauth_access_tokens SET expires_at = expires_at - interval '1 second' WHERE grant_id = $1`, [minted.grantId]);
    await until(() => verifier.size === 0, 'the access token change is heard');
    await verifier.verify(minted.access_token);
    expect(verifier.size).to.equal(1);
    await sql.query(`DELETE FROM oauth_grants WHERE id = $1`, [minted.grantId]);
    await until(() => verifier.size === 0, 'the deletion is heard');
    expect(await verifier.verify(minted.access_token)).to.equal(null);
  });
});
