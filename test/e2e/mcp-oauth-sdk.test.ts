import { expect } from 'chai';
import pg from 'pg';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { AccountStore } from '../../application/ports/account-store.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { request } from '../support/http.js';
import { csrfOf, WebClient } from '../support/oauth-server.js';
import { startFullServer } from '../support/server.js';
import { aWorkspace } from '../support/mothers.js';

/** An MCP client's credential store, in memory; the "browser" is driven by the test. */
class RecordingProvider implements OAuthClientProvider {
  client?: OAuthClientInformationMixed;
  stored?: OAuthTokens;
  verifier = '';
  authorizationUrls: URL[] = [];
  readonly redirectUrl = 'http://127.0.0.1:33418/callback';
  readonly clientMetadata: OAuthClientMetadata = {
    client_name: 'SDK e2e client',
    redirect_uris: [this.redirectUrl],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
  };

  state = () => 'sdk-state';
  clientInformation = () => this.client;
  saveClientInformation = (info: OAuthClientInformationMixed) => void (this.client = info);
  tokens = () => this.stored;
  saveTokens = (tokens: OAuthTokens) => void (this.stored = tokens);
  redirectToAuthorization = (url: URL) => void this.authorizationUrls.push(url);
  saveCodeVerifier = (verifier: string) => void (this.verifier = verifier);
  codeVerifier = () => this.verifier;
}

const jsonBlock = (text: string) => JSON.parse(text.slice(text.indexOf('BEGIN_JSON') + 10, text.indexOf('END_JSON')));
const textOf = (result: unknown) => (result as { content: Array<{ text: string }> }).content[0]!.text;

describe('e2e: the official MCP SDK client signs in through OAuth (full server, PostgreSQL)', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let server: Awaited<ReturnType<typeof startFullServer>>;
  const provider = new RecordingProvider();
  const requested: string[] = [];
  const fetchLogged: typeof fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    requested.push(`${init?.method ?? 'GET'} ${url.pathname}`);
    return fetch(input, init);
  };
  const transport = () => new StreamableHTTPClientTransport(new URL(`${server.settings.baseUrl}/mcp`), { authProvider: provider, fetch: fetchLogged });

  before(async () => {
    database = await createMigratedTestDatabase();
    server = await startFullServer({ DATABASE_URL: database.url, REDIS_URL: '' });
  });
  after(async () => {
    await server?.close();
    await database?.drop();
  });

  it('discovers, registers, authorizes with a workspace lock, calls tools under it, and refreshes silently', async () => {
    // A user with a workspace, signed in to the web app.
    const web = new WebClient(server.url, server.hosts.app);
    const signUp = await web.get('/sign-up');
    await web.post('/sign-up', { csrf: csrfOf(signUp), handle: 'sdkuser', email: 'sdk@example.com', password: 'correct horse battery' });
    const accounts = server.server.app.container.get<AccountStore>(AccountStore);
    const user = (await accounts.findUserByHandle('sdkuser'))!;
    const workspace = await aWorkspace(accounts, { slug: 'sdk-team', name: 'SDK Team' });
    await accounts.addMember(workspace.id, user.id, 'admin');

    // 1. The first connection meets the 401 and goes through discovery and registration to the browser step.
    let unauthorized: unknown;
    await new Client({ name: 'sdk-e2e', version: '1.0.0' }).connect(transport()).catch((error) => (unauthorized = error));
    expect(unauthorized, String(unauthorized)).to.be.instanceOf(UnauthorizedError);
    expect(requested.slice(0, 4)).to.deep.equal([
      'POST /mcp',
      'GET /.well-known/oauth-protected-resource',
      'GET /.well-known/oauth-authorization-server',
      'POST /register',
    ]);
    expect(provider.client?.client_id).to.be.a('string');
    expect(provider.authorizationUrls).to.have.length(1);

    // 2. The browser step, headless: /authorize, the consent screen, Allow access on the workspace.
    const authorizeUrl = provider.authorizationUrls[0]!;
    expect(authorizeUrl.searchParams.get('code_challenge_method')).to.equal('S256');
    expect(authorizeUrl.searchParams.get('resource')).to.equal(`${server.settings.baseUrl}/mcp`);
    const started = await request({ url: `${server.url}${authorizeUrl.pathname}${authorizeUrl.search}`, host: server.hosts.api });
    expect(started.status).to.equal(302);
    const consentUrl = new URL(started.headers.location!);
    const consentPath = `${consentUrl.pathname}${consentUrl.search}`;
    const consent = await web.get(consentPath);
    expect(consent.text).to.contain('Authorize SDK e2e client').and.contain('SDK Team');
    const allowed = await web.post('/consent', {
      csrf: csrfOf(consent),
      request: consentUrl.searchParams.get('request')!,
      decision: 'allow',
      target: `workspace:${workspace.id}`,
    });
    const callback = new URL(allowed.headers.location!);
    expect(`${callback.origin}${callback.pathname}`).to.equal(provider.redirectUrl);
    expect(callback.searchParams.get('state')).to.equal('sdk-state');

    // 3. The client exchanges the code, then connects and calls tools under the workspace lock.
    const first = transport();
    await first.finishAuth(callback.searchParams.get('code')!);
    expect(provider.stored?.access_token).to.be.a('string');
    expect(provider.stored?.expires_in).to.be.at.most(3000);
    const client = new Client({ name: 'sdk-e2e', version: '1.0.0' });
    await client.connect(transport());
    const whoami = jsonBlock(textOf(await client.callTool({ name: 'whoami', arguments: {} })));
    expect(whoami.handle).to.equal('sdkuser');
    expect(whoami.target).to.include({ kind: 'workspace', name: 'sdk-team' });
    const refused = await client.callTool({ name: 'list_dashboards', arguments: { workspace: 'elsewhere' } });
    expect(refused.isError).to.equal(true);
    expect(textOf(refused)).to.match(/^This connection is authorized for the "sdk-team" workspace and cannot act on "elsewhere"\./);

    // 4. The access token expires; the next call refreshes silently (no second browser step).
    const before = { ...provider.stored! };
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      const expired = await db.query(`UPDATE oauth_access_tokens SET expires_at = now() - interval '1 second'`);
      expect(expired.rowCount).to.be.greaterThan(0);
    } finally {
      await db.end();
    }
    requested.length = 0;
    const again = jsonBlock(textOf(await client.callTool({ name: 'whoami', arguments: {} })));
    expect(again.target).to.include({ kind: 'workspace', name: 'sdk-team' });
    expect(requested).to.include('POST /token');
    expect(provider.stored!.access_token).to.not.equal(before.access_token);
    expect(provider.stored!.refresh_token).to.not.equal(before.refresh_token);
    expect(provider.authorizationUrls).to.have.length(1);
    await client.close();
  });
});
