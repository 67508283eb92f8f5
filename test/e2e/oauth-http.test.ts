import { expect } from 'chai';
import { AccountStore } from '../../application/ports/account-store.js';
import { TokenVerifier } from '../../application/ports/token-verifier.js';
import { WebSecurity } from '../../shells/koa/app/web-security.js';
import { NodeSecretTokens } from '../../adapters/crypto/node-secret-tokens.js';
import { request } from '../support/http.js';
import { pkcePair } from '../support/oauth-kit.js';
import { csrfOf, startOAuthServer, WebClient, type OAuthServer } from '../support/oauth-server.js';
import { testSettings } from '../support/settings.js';
import { loadSettings } from '../../shells/config.js';
import { aWorkspace } from '../support/mothers.js';

const REDIRECT = 'http://127.0.0.1:49152/callback';

describe('e2e: OAuth over HTTP (API host and web app)', function () {
  this.timeout(20_000);
  let server: OAuthServer;
  let api: (path: string, init?: { method?: string; body?: unknown; headers?: Record<string, string> }) => ReturnType<typeof request>;

  before(async () => {
    server = await startOAuthServer();
    api = (path, init = {}) => request({ url: `${server.url}${path}`, host: server.hosts.api, ...init });
  });
  after(() => server?.close());

  const registerClient = async (name = 'Test <b>Client</b>') => {
    const res = await api('/register', { method: 'POST', body: { client_name: name, redirect_uris: [REDIRECT] } });
    expect(res.status).to.equal(201);
    return res.json<{ client_id: string }>().client_id;
  };

  const authorizeUrl = (clientId: string, challenge: string, extra: Record<string, string> = {}) =>
    `/authorize?${new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 'st4te', ...extra })}`;

  /** Registers, authorizes, and answers the consent screen's path on the app host. */
  const startFlow = async () => {
    const clientId = await registerClient();
    const pkce = pkcePair();
    const res = await api(authorizeUrl(clientId, pkce.challenge));
    expect(res.status).to.equal(302);
    const location = new URL(res.headers.location!);
    expect(`${location.origin}${location.pathname}`).to.equal(`${server.settings.appUrl}/consent`);
    return { clientId, pkce, consentPath: `${location.pathname}${location.search}` };
  };

  const signedUpClient = async (handle: string) => {
    const web = new WebClient(server.url, server.hosts.app);
    const form = await web.get('/sign-up');
    const res = await web.post('/sign-up', { csrf: csrfOf(form), handle, email: `${handle}@example.com`, password: 'correct horse battery', return_to: '/account' });
    expect(res.status).to.equal(303);
    return web;
  };

  const token = (fields: Record<string, string>) =>
    api('/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });

  it('publishes both discovery documents', async () => {
    const as = await api('/.well-known/oauth-authorization-server');
    expect(as.status).to.equal(200);
    const base = server.settings.baseUrl;
    expect(as.json()).to.deep.include({
      issuer: base,
      authorization_endpoint: `${base}/authorize`,
      token_endpoint: `${base}/token`,
      registration_endpoint: `${base}/register`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
    });
    const pr = await api('/.well-known/oauth-protected-resource');
    expect(pr.json()).to.deep.include({ resource: `${base}/mcp`, authorization_servers: [base] });
    expect((await api('/.well-known/oauth-protected-resource/mcp')).status).to.equal(404);
    expect((await api('/token')).status).to.equal(404);
  });

  it('registers public clients and refuses bad metadata', async () => {
    const ok = await api('/register', { method: 'POST', body: { client_name: 'Claude', redirect_uris: [REDIRECT] } });
    expect(ok.status).to.equal(201);
    expect(ok.headers['cache-control']).to.equal('no-store');
    expect(ok.json()).to.deep.include({ client_name: 'Claude', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    const bad = await api('/register', { method: 'POST', body: { redirect_uris: ['http://evil.example/cb'] } });
    expect(bad.status).to.equal(400);
    expect(bad.json().error).to.equal('invalid_redirect_uri');
    const junk = await api('/register', { method: 'POST', body: 'not json', headers: { 'content-type': 'application/json' } });
    expect([junk.status, junk.json().error]).to.deep.equal([400, 'invalid_client_metadata']);
  });

  it('never redirects to an unknown client or an unregistered redirect URI', async () => {
    const clientId = await registerClient();
    const { challenge } = pkcePair();
    for (const path of [authorizeUrl('00000000-0000-4000-8000-000000000000', challenge), authorizeUrl(clientId, challenge, { redirect_uri: 'https://evil.example/cb' })]) {
      const res = await api(path);
      expect(res.status).to.equal(400);
      expect(res.headers.location).to.equal(undefined);
      expect(res.headers['content-type']).to.match(/text\/html/);
      expect(res.headers['content-security-policy']).to.contain("frame-ancestors 'none'");
      expect(res.text).to.not.contain('evil.example');
    }
  });

  it('refuses PKCE plain at /authorize by redirect, state echoed', async () => {
    const clientId = await registerClient();
    const res = await api(authorizeUrl(clientId, pkcePair().challenge, { code_challenge_method: 'plain' }));
    expect(res.status).to.equal(302);
    const location = new URL(res.headers.location!);
    expect(location.searchParams.get('error')).to.equal('invalid_request');
    expect(location.searchParams.get('state')).to.equal('st4te');
  });

  it('shows the consent screen with sign-in fields, escaped client name, exact redirect URI and scope', async () => {
    const { consentPath } = await startFlow();
    const web = new WebClient(server.url, server.hosts.app);
    const page = await web.get(consentPath);
    expect(page.status).to.equal(200);
    expect(page.text).to.contain('Test &lt;b&gt;Client&lt;/b&gt;');
    expect(page.text).to.not.contain('<b>Client</b>');
    expect(page.text).to.contain(REDIRECT);
    expect(page.text).to.contain('<code>mcp</code>');
    expect(page.text).to.match(/<label class="field" for="email">Email<\/label>/);
    expect(page.text).to.match(/<label class="field" for="password">Password<\/label>/);
    expect(page.text).to.contain('>Sign in</button>');
    expect(page.text).to.contain('>Cancel</button>');
    expect(page.text).to.not.contain('<script');
    expect(page.headers['content-security-policy']).to.contain("frame-ancestors 'none'");
    expect(page.headers['x-frame-options']).to.equal('DENY');
    expect(page.headers['cache-control']).to.equal('no-store');
    const csrfCookie = (page.headers['set-cookie'] ?? []).find((c) => c.startsWith('dashpub_csrf='))!;
    expect(csrfCookie).to.match(/HttpOnly/).and.match(/SameSite=Lax/);
  });

  it('signs in, picks a workspace, allows access, and the code exchanges for tokens once', async () => {
    const web = await signedUpClient('wendy');
    const accounts = server.container.get<AccountStore>(AccountStore);
    const wendy = (await accounts.findUserByHandle('wendy'))!;
    const team = await aWorkspace(accounts, { slug: 'wendy-team', name: 'Wendy & Co' });
    await accounts.addMember(team.id, wendy.id, 'member');

    const { clientId, pkce, consentPath } = await startFlow();
    const page = await web.get(consentPath);
    expect(page.text).to.contain('Allow access').and.contain('Personal account').and.contain('Wendy &amp; Co');
    expect(page.text).to.contain(`value="workspace:${team.id}"`);
    expect(page.headers['content-security-policy']).to.contain('form-action \'self\' http://127.0.0.1:49152');
    const request = new URLSearchParams(consentPath.split('?')[1]).get('request')!;

    const noCsrf = await web.post('/consent', { request, decision: 'allow', target: `workspace:${team.id}` });
    expect(noCsrf.status).to.equal(403);
    const foreign = await web.post('/consent', { csrf: csrfOf(page), request, decision: 'allow', target: `workspace:${team.id}` }, { origin: 'http://evil.dash.localhost:8787' });
    expect(foreign.status).to.equal(403);

    const allowed = await web.post('/consent', { csrf: csrfOf(page), request, decision: 'allow', target: `workspace:${team.id}` });
    expect(allowed.status).to.equal(303);
    const callback = new URL(allowed.headers.location!);
    expect(`${callback.origin}${callback.pathname}`).to.equal(REDIRECT);
    expect(callback.searchParams.get('state')).to.equal('st4te');
    expect(callback.searchParams.get('iss')).to.equal(server.settings.baseUrl);
    const code = callback.searchParams.get('code')!;

    const wrongRedirect = await token({ grant_type: 'authorization_code', code, code_verifier: pkce.verifier, redirect_uri: 'http://127.0.0.1:49152/other', client_id: clientId });
    expect([wrongRedirect.status, wrongRedirect.json().error]).to.deep.equal([400, 'invalid_grant']);
    const tokens = await token({ grant_type: 'authorization_code', code, code_verifier: pkce.verifier, redirect_uri: REDIRECT, client_id: clientId });
    expect(tokens.status).to.equal(200);
    expect(tokens.headers['cache-control']).to.equal('no-store');
    const body = tokens.json<{ access_token: string; token_type: string; expires_in: number; refresh_token: string }>();
    expect(body.token_type).to.equal('Bearer');
    expect(body.expires_in).to.be.at.most(3000);
    const principal = await server.container.get<TokenVerifier>(TokenVerifier).verify(body.access_token);
    expect(principal!.lock).to.deep.equal({ kind: 'workspace', workspaceId: team.id, workspaceSlug: 'wendy-team' });

    const replay = await token({ grant_type: 'authorization_code', code, code_verifier: pkce.verifier, redirect_uri: REDIRECT, client_id: clientId });
    expect([replay.status, replay.json().error]).to.deep.equal([400, 'invalid_grant']);
    expect(replay.headers['cache-control']).to.equal('no-store');
    expect(await server.container.get<TokenVerifier>(TokenVerifier).verify(body.access_token)).to.equal(null);

    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id: clientId });
    expect(refreshed.status).to.equal(400);
  });

  it('Cancel sends the client access_denied with the description and the state', async () => {
    const web = await signedUpClient('carl');
    const { consentPath } = await startFlow();
    const page = await web.get(consentPath);
    const request = new URLSearchParams(consentPath.split('?')[1]).get('request')!;
    const denied = await web.post('/consent', { csrf: csrfOf(page), request, decision: 'deny' });
    expect(denied.status).to.equal(303);
    const callback = new URL(denied.headers.location!);
    expect(callback.searchParams.get('error')).to.equal('access_denied');
    expect(callback.searchParams.get('error_description')).to.equal('The user declined the authorization request.');
    expect(callback.searchParams.get('state')).to.equal('st4te');
    const again = await web.get(consentPath);
    expect(again.status).to.equal(404);
    expect(again.text).to.contain('expired or was already answered');
  });

  it('signs in from the consent screen and comes back to it', async () => {
    await signedUpClient('sam');
    const { consentPath } = await startFlow();
    const web = new WebClient(server.url, server.hosts.app);
    const page = await web.get(consentPath);
    const wrong = await web.post('/sign-in', { csrf: csrfOf(page), email: 'sam@example.com', password: 'wrong password here', return_to: consentPath });
    expect(wrong.status).to.equal(401);
    expect(wrong.text).to.contain('The email or password is not correct.');
    const ok = await web.post('/sign-in', { csrf: csrfOf(page), email: 'sam@example.com', password: 'correct horse battery', return_to: consentPath });
    expect(ok.status).to.equal(303);
    expect(ok.headers.location).to.equal(consentPath);
    const session = (ok.headers['set-cookie'] ?? []).find((c) => c.startsWith('dashpub_session='))!;
    expect(session).to.match(/HttpOnly/).and.match(/SameSite=Lax/).and.not.match(/Secure/);
    expect((await web.get(consentPath)).text).to.contain('Signed in as <strong>@sam</strong>');
  });

  it('shows the account page with handle, plan, workspaces and connected clients, and revokes', async () => {
    const web = await signedUpClient('amy');
    const { clientId, pkce, consentPath } = await startFlow();
    const consent = await web.get(consentPath);
    const request = new URLSearchParams(consentPath.split('?')[1]).get('request')!;
    const allowed = await web.post('/consent', { csrf: csrfOf(consent), request, decision: 'allow', target: 'personal' });
    const code = new URL(allowed.headers.location!).searchParams.get('code')!;
    const tokens = (await token({ grant_type: 'authorization_code', code, code_verifier: pkce.verifier, redirect_uri: REDIRECT, client_id: clientId })).json();

    const account = await web.get('/account');
    expect(account.status).to.equal(200);
    expect(account.text).to.contain('@amy').and.contain('<span class="badge">free</span>').and.contain('Workspaces');
    expect(account.text).to.contain('Test &lt;b&gt;Client&lt;/b&gt;');
    const grantId = /name="grant" value="([^"]+)"/.exec(account.text)![1]!;
    const revoked = await web.post('/account/grants/revoke', { csrf: csrfOf(account), grant: grantId });
    expect([revoked.status, revoked.headers.location]).to.deep.equal([303, '/account?revoked=1']);
    expect(await server.container.get<TokenVerifier>(TokenVerifier).verify(tokens.access_token)).to.equal(null);

    const signOut = await web.post('/sign-out', { csrf: csrfOf(account) });
    expect(signOut.status).to.equal(303);
    expect((await web.get('/account')).headers.location).to.equal('/sign-in?return_to=%2Faccount');
  });

  it('answers unknown app paths with 404', async () => {
    const res = await new WebClient(server.url, server.hosts.app).get('/nope');
    expect(res.status).to.equal(404);
  });
});

describe('e2e: OAuth over HTTP, settings', function () {
  this.timeout(20_000);

  it('limits registrations to 30 per minute per client address with the spec\'s 429', async () => {
    const server = await startOAuthServer();
    try {
      const register = () => request({ url: `${server.url}/register`, host: server.hosts.api, method: 'POST', body: { redirect_uris: [REDIRECT] } });
      for (let i = 0; i < 30; i++) expect((await register()).status).to.equal(201);
      const limited = await register();
      expect(limited.status).to.equal(429);
      expect(limited.headers['retry-after']).to.equal('60');
      expect(limited.json()).to.deep.equal({ error: 'rate_limited', error_description: 'too many client registrations, please retry shortly' });
      server.clock.advance(60);
      expect((await register()).status).to.equal(201);
    } finally {
      await server.close();
    }
  });

  it('keys the registration limit on the socket address, whatever X-Forwarded-For says, unless TRUST_PROXY is set', async () => {
    const server = await startOAuthServer();
    try {
      const register = (forwardedFor: string) =>
        request({ url: `${server.url}/register`, host: server.hosts.api, method: 'POST', headers: { 'x-forwarded-for': forwardedFor }, body: { redirect_uris: [REDIRECT] } });
      for (let i = 0; i < 30; i++) expect((await register(`198.51.100.${i}`)).status).to.equal(201);
      expect((await register('198.51.100.200')).status).to.equal(429);
    } finally {
      await server.close();
    }
  });

  it('behind TRUST_PROXY=1 keys it on the address the proxy appended, not on what the client sent before it', async () => {
    const server = await startOAuthServer({ TRUST_PROXY: '1' });
    try {
      const register = (forwardedFor: string) =>
        request({ url: `${server.url}/register`, host: server.hosts.api, method: 'POST', headers: { 'x-forwarded-for': forwardedFor }, body: { redirect_uris: [REDIRECT] } });
      // One client rotating a forged first entry: the proxy's own entry (the last) is what counts.
      for (let i = 0; i < 30; i++) expect((await register(`10.9.8.${i}, 203.0.113.7`)).status).to.equal(201);
      const limited = await register('10.9.8.99, 203.0.113.7');
      expect(limited.status).to.equal(429);
      expect(limited.headers['retry-after']).to.equal('60');
      // Another client behind the same proxy has its own budget.
      expect((await register('203.0.113.8')).status).to.equal(201);
    } finally {
      await server.close();
    }
  });

  it('refuses a TRUST_PROXY that is not a number of proxies, clearly', () => {
    expect(() => loadSettings({ TRUST_PROXY: 'cloudflare' })).to.throw(
      'TRUST_PROXY must be true, false or the number of proxies in front of the service, 0 to 10 (got "cloudflare")',
    );
    expect([loadSettings({}).trustProxyHops, loadSettings({ TRUST_PROXY: 'true' }).trustProxyHops, loadSettings({ TRUST_PROXY: '2' }).trustProxyHops]).to.deep.equal([0, 1, 2]);
  });

  it('honours ALLOW_SIGNUP=false', async () => {
    const server = await startOAuthServer({ ALLOW_SIGNUP: 'false' });
    try {
      const web = new WebClient(server.url, server.hosts.app);
      const form = await web.get('/sign-up');
      expect(form.status).to.equal(403);
      expect(form.text).to.contain('Sign-up is closed');
      const signIn = await web.get('/sign-in');
      const res = await web.post('/sign-up', { csrf: csrfOf(signIn), handle: 'eve', email: 'eve@example.com', password: 'correct horse battery' });
      expect(res.status).to.equal(403);
      expect(res.text).to.contain('Sign-up is closed');
      expect(await server.container.get<AccountStore>(AccountStore).findUserByHandle('eve')).to.equal(null);
    } finally {
      await server.close();
    }
  });

  it('marks cookies Secure and prefixes the CSRF and session cookies with __Host- when the app URL is https', () => {
    const security = new WebSecurity(testSettings({ appUrl: 'https://app.example.com' }), new NodeSecretTokens());
    const headers: string[] = [];
    const ctx = { get: () => '', append: (_: string, value: string) => headers.push(value), state: {} } as never;
    security.csrfToken(ctx);
    security.setSession(ctx, 'x'.repeat(43), new Date(Date.now() + 60_000));
    expect(headers[0]).to.match(/^__Host-dashpub_csrf=.*; Path=\/; .*HttpOnly; SameSite=Lax; Secure$/);
    expect(headers[1]).to.match(/^__Host-dashpub_session=x{43}; Path=\/; .*HttpOnly; SameSite=Lax; Secure$/);
    const signedIn = { get: () => `__Host-dashpub_session=${'y'.repeat(43)}; dashpub_session=planted`, append: () => 0, state: {} } as never;
    expect(security.sessionToken(signedIn)).to.equal('y'.repeat(43));
    const planted = { get: () => 'dashpub_session=planted', append: () => 0, state: {} } as never;
    expect(security.sessionToken(planted)).to.equal(null);
  });
});
