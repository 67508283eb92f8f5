import { expect } from 'chai';
import { createMigratedTestDatabase, type TestDatabase } from '../../support/database.js';
import { oauthHttp } from '../../support/oauth-http-flow.js';
import { startOAuthServer, type OAuthServer } from '../../support/oauth-server.js';

/**
 * Issue 30, item 9: after rotation the previous refresh token works once more only as a retry of the
 * same request (same client, `scope` and `resource` as sent) within REFRESH_RETRY_GRACE_SECONDS; any
 * other or later use revokes the grant. Over HTTP /token, on PostgreSQL.
 */
describe('security: refresh-token grace window (POST /token)', function () {
  this.timeout(30_000);
  let database: TestDatabase;
  let server: OAuthServer;
  let flow: ReturnType<typeof oauthHttp>;

  before(async () => {
    database = await createMigratedTestDatabase();
    server = await startOAuthServer({ DATABASE_URL: database.url, REFRESH_RETRY_GRACE_SECONDS: '10' }, 'database');
    flow = oauthHttp(server);
  });
  after(async () => {
    await server?.close();
    await database?.drop();
  });

  const refresh = (clientId: string, refreshToken: string, extra: Record<string, string> = {}) =>
    flow.token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId, ...extra });
  const revokedAnswer = { error: 'invalid_grant', error_description: 'refresh token reused: the authorization is revoked' };

  it('a stolen previous token used after the window revokes the grant before the real client refreshes', async () => {
    const first = await flow.tokensFor('grace-late');
    const rotated = await refresh(first.clientId, first.refresh_token);
    expect(rotated.status).to.equal(200);
    server.clock.advance(11);
    const stolen = await refresh(first.clientId, first.refresh_token);
    expect([stolen.status, stolen.json()]).to.deep.equal([400, revokedAnswer]);
    // The legitimate client's rotated token died with the grant.
    const real = await refresh(first.clientId, rotated.json<{ refresh_token: string }>().refresh_token);
    expect([real.status, real.json().error_description]).to.deep.equal([400, 'the authorization has been revoked']);
  });

  it('a previous token sent with other parameters than the rotating request revokes the grant, even at once', async () => {
    const first = await flow.tokensFor('grace-other');
    expect((await refresh(first.clientId, first.refresh_token)).status).to.equal(200);
    const other = await refresh(first.clientId, first.refresh_token, { scope: 'mcp' });
    expect([other.status, other.json()]).to.deep.equal([400, revokedAnswer]);
  });

  it('the same request retried within the window gets a fresh pair, once; a third use revokes', async () => {
    const first = await flow.tokensFor('grace-retry');
    const params = { scope: 'mcp', resource: `${server.settings.baseUrl}/mcp` };
    const rotated = await refresh(first.clientId, first.refresh_token, params);
    expect(rotated.status).to.equal(200);
    server.clock.advance(10);
    const retried = await refresh(first.clientId, first.refresh_token, params);
    expect(retried.status).to.equal(200);
    const retriedPair = retried.json<{ access_token: string; refresh_token: string }>();
    expect(retriedPair.refresh_token).to.not.equal(rotated.json<{ refresh_token: string }>().refresh_token);
    const third = await refresh(first.clientId, first.refresh_token, params);
    expect([third.status, third.json()]).to.deep.equal([400, revokedAnswer]);
  });

  it('the retry answer keeps working: its refresh token rotates normally', async () => {
    const first = await flow.tokensFor('grace-keeps');
    expect((await refresh(first.clientId, first.refresh_token)).status).to.equal(200);
    const retried = await refresh(first.clientId, first.refresh_token);
    expect(retried.status).to.equal(200);
    const next = await refresh(first.clientId, retried.json<{ refresh_token: string }>().refresh_token);
    expect(next.status).to.equal(200);
  });
});
