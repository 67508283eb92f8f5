import { expect } from 'chai';
import { AccountStore } from '../../application/ports/account-store.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { startFakeOidcProvider, type FakeBehaviour, type FakeOidcProvider, type FakePerson } from '../support/fake-oidc-provider.js';
import { request, type HttpResponse } from '../support/http.js';
import { pkcePair } from '../support/oauth-kit.js';
import { startOAuthServer, WebClient } from '../support/oauth-server.js';
import { startFullServer } from '../support/server.js';

const CLIENT = { clientId: 'dashpub-test', clientSecret: 'provider-secret' };

/** The button's label goes through HTML escaping: the name here would break the page otherwise. */
const PROVIDER_NAME = 'Acme <SSO> & Co';
const ESCAPED_NAME = 'Acme &lt;SSO&gt; &amp; Co';

/** Upstream OIDC sign-in over HTTP on PostgreSQL, against a fake provider on 127.0.0.1. */
describe('e2e: upstream OIDC sign-in (PostgreSQL, fake provider)', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let provider: FakeOidcProvider;
  let server: Awaited<ReturnType<typeof startFullServer>>;

  before(async () => {
    database = await createMigratedTestDatabase();
    provider = await startFakeOidcProvider(CLIENT);
    server = await startFullServer({
      DATABASE_URL: database.url,
      REDIS_URL: '',
      SECRET_KEY: 'oidc-e2e-secret',
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: CLIENT.clientId,
      OIDC_CLIENT_SECRET: CLIENT.clientSecret,
      OIDC_NAME: PROVIDER_NAME,
    });
  });

  after(async () => {
    await server?.close();
    await provider?.close();
    await database?.drop();
  });

  const accounts = () => server.server.app.container.get<AccountStore>(AccountStore);
  const browser = () => new WebClient(server.url, server.hosts.app);
  const callbackPrefix = () => `${server.settings.appUrl}/sign-in/oidc/callback?`;

  /** Start → the provider (which signs `person` in at once) → the provider's redirect back, not yet followed. */
  const toProviderAndBack = async (web: WebClient, person: FakePerson, returnTo = '/account', behaviour: FakeBehaviour = {}) => {
    provider.signInAs(person, behaviour);
    const start = await web.get(`/sign-in/oidc?return_to=${encodeURIComponent(returnTo)}`);
    expect(start.status).to.equal(302);
    const authorize = await request({ url: start.headers.location! });
    expect(authorize.status).to.equal(302);
    const back = authorize.headers.location!;
    expect(back.startsWith(callbackPrefix())).to.equal(true);
    return { start, back: new URL(back) };
  };

  const followBack = (web: WebClient, back: URL) => web.get(`${back.pathname}${back.search}`);

  const signIn = async (web: WebClient, person: FakePerson, returnTo = '/account', behaviour: FakeBehaviour = {}): Promise<HttpResponse> => {
    const { back } = await toProviderAndBack(web, person, returnTo, behaviour);
    return followBack(web, back);
  };

  it('offers the escaped button next to the email and password form, as a plain link', async () => {
    const page = await browser().get('/sign-in?return_to=%2Fconnections');
    expect(page.status).to.equal(200);
    for (const label of ['>Email<', '>Password<', '>Sign in</button>']) expect(page.text).to.contain(label);
    expect(page.text).to.contain(`<a class="button full" href="/sign-in/oidc?return_to=%2Fconnections">Sign in with ${ESCAPED_NAME}</a>`);
    expect(page.text).to.not.contain('<SSO>');
  });

  it('starts at the provider with state, nonce, S256 PKCE and the openid email profile scope, in a sealed short-lived cookie', async () => {
    const web = browser();
    const { start } = await toProviderAndBack(web, { sub: 'probe' });
    const location = new URL(start.headers.location!);
    expect(`${location.origin}${location.pathname}`).to.equal(`${provider.issuer}/authorize`);
    const asked = provider.lastAuthorization!;
    expect(asked.get('scope')).to.equal('openid email profile');
    expect(asked.get('response_type')).to.equal('code');
    expect(asked.get('client_id')).to.equal(CLIENT.clientId);
    expect(asked.get('redirect_uri')).to.equal(`${server.settings.appUrl}/sign-in/oidc/callback`);
    expect(asked.get('code_challenge_method')).to.equal('S256');
    for (const check of ['state', 'nonce', 'code_challenge']) expect(asked.get(check)).to.match(/^[A-Za-z0-9_-]{22,}$/);
    const cookie = (start.headers['set-cookie'] ?? []).find((c) => c.startsWith('dashpub_oidc_attempt='))!;
    expect(cookie).to.match(/; Max-Age=600; HttpOnly; SameSite=Lax/);
    for (const check of ['state', 'nonce']) expect(cookie).to.not.contain(asked.get(check)!);
  });

  it('signs a new person up through the provider, and the account page shows the new handle', async () => {
    const web = browser();
    const res = await signIn(web, { sub: 'ada-sub', email: 'ada@example.com', email_verified: true, preferred_username: 'Ada.Lovelace' });
    expect(res.status).to.equal(303);
    expect(res.headers.location).to.equal('/account');
    expect(web.cookies.has('dashpub_session')).to.equal(true);
    expect(web.cookies.has('dashpub_oidc_attempt')).to.equal(false);
    expect(provider.lastTokenAuthorization).to.match(/^Basic /);
    const account = await web.get('/account');
    expect(account.status).to.equal(200);
    expect(account.text).to.contain('<h1>@ada-lovelace</h1>');
    const stored = (await accounts().findUserByHandle('ada-lovelace'))!;
    expect(stored).to.include({ email: 'ada@example.com', plan: 'free', passwordHash: null });
    expect((await accounts().findUserByIdentity(provider.issuer, 'ada-sub'))!.id).to.equal(stored.id);
  });

  it('brings the same subject back to the same account, in another browser', async () => {
    const web = browser();
    const res = await signIn(web, { sub: 'ada-sub', email: 'ada.new@example.com', email_verified: true, preferred_username: 'someone' });
    expect(res.status).to.equal(303);
    expect((await web.get('/account')).text).to.contain('<h1>@ada-lovelace</h1>');
    expect((await accounts().listUsers()).filter((u) => u.passwordHash === null).map((u) => u.handle)).to.deep.equal(['ada-lovelace']);
  });

  it('refuses a tampered state with 400 and the sign-in page, and signs nobody in', async () => {
    const web = browser();
    const { back } = await toProviderAndBack(web, { sub: 'eve-sub', email: 'eve@example.com', email_verified: true });
    back.searchParams.set('state', `${back.searchParams.get('state')}x`);
    const res = await followBack(web, back);
    expect(res.status).to.equal(400);
    expect(res.headers['content-type']).to.contain('text/html');
    expect(res.text).to.contain('could not be verified for this sign-in attempt, so you were not signed in. Start again.');
    expect(res.text).to.contain('>Sign in</button>');
    expect(res.text).to.not.match(/\bat .*\.js:\d+/);
    expect(web.cookies.has('dashpub_session')).to.equal(false);
    expect(await accounts().findUserByIdentity(provider.issuer, 'eve-sub')).to.equal(null);
    // The attempt is spent: the genuine answer no longer works either.
    back.searchParams.set('state', back.searchParams.get('state')!.slice(0, -1));
    expect((await followBack(web, back)).status).to.equal(400);
  });

  it('refuses an answer that comes back to another browser, an ID token with another nonce, and a provider refusal', async () => {
    const { back } = await toProviderAndBack(browser(), { sub: 'mallory-sub', email: 'm@example.com', email_verified: true });
    const stranger = await followBack(browser(), back);
    expect(stranger.status).to.equal(400);
    expect(stranger.text).to.contain('This sign-in attempt has expired or was started in another browser. Start again.');

    const forged = await signIn(browser(), { sub: 'mallory-sub', email: 'm@example.com', email_verified: true }, '/account', { forgeNonce: true });
    expect(forged.status).to.equal(400);
    expect(forged.text).to.contain('could not be verified for this sign-in attempt');
    expect(await accounts().findUserByIdentity(provider.issuer, 'mallory-sub')).to.equal(null);

    const denied = await signIn(browser(), { sub: 'denied-sub' }, '/account', { deny: true });
    expect(denied.status).to.equal(400);
    expect(denied.text).to.contain(`${ESCAPED_NAME} did not sign you in (access_denied).`);
  });

  it('links a password account by a verified email once its owner has signed in, and returns to the consent screen it started from', async () => {
    const web = browser();
    const signUpForm = await web.get('/sign-up');
    const csrf = /name="csrf" value="([^"]+)"/.exec(signUpForm.text)![1]!;
    expect((await web.post('/sign-up', { csrf, handle: 'grace', email: 'grace@example.com', password: 'correct horse battery' })).status).to.equal(303);

    const api = (path: string, init: { method?: string; body?: unknown } = {}) => request({ url: `${server.url}${path}`, host: server.hosts.api, ...init });
    const redirectUri = 'http://127.0.0.1:49152/callback';
    const clientId = (await api('/register', { method: 'POST', body: { client_name: 'Claude', redirect_uris: [redirectUri] } })).json().client_id as string;
    const query = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, code_challenge: pkcePair().challenge, code_challenge_method: 'S256', state: 's' });
    const consentUrl = new URL((await api(`/authorize?${query}`)).headers.location!);
    const consentPath = `${consentUrl.pathname}${consentUrl.search}`;

    // Not signed in: whoever signed up with this address may not be its owner, so no link.
    const elsewhere = browser();
    const consent = await elsewhere.get(consentPath);
    expect(consent.text).to.contain(`href="/sign-in/oidc?return_to=${encodeURIComponent(consentPath)}"`);
    const refused = await signIn(elsewhere, { sub: 'grace-sub', email: 'Grace@Example.com', email_verified: true }, consentPath);
    expect(refused.status).to.equal(400);
    expect(refused.text).to.contain('already exists and has a password. Sign in with your password first');
    expect(await accounts().findUserByIdentity(provider.issuer, 'grace-sub')).to.equal(null);

    // Signed in with the password (the sign-up above did that): the link is made.
    const res = await signIn(web, { sub: 'grace-sub', email: 'Grace@Example.com', email_verified: true }, consentPath);
    expect(res.status).to.equal(303);
    expect(res.headers.location).to.equal(consentPath);
    const again = await signIn(elsewhere, { sub: 'grace-sub', email: 'grace@example.com', email_verified: false }, consentPath);
    expect(again.status).to.equal(303);
    const signedIn = await elsewhere.get(consentPath);
    expect(signedIn.text).to.contain('Signed in as <strong>@grace</strong>');
    expect(signedIn.text).to.contain('Allow access');
    expect((await accounts().findUserByIdentity(provider.issuer, 'grace-sub'))!.handle).to.equal('grace');
  });

  it('does not link by an unverified email', async () => {
    const res = await signIn(browser(), { sub: 'not-grace', email: 'grace@example.com', email_verified: false });
    expect(res.status).to.equal(400);
    expect(res.text).to.contain('does not confirm that this address is yours');
    expect(await accounts().findUserByIdentity(provider.issuer, 'not-grace')).to.equal(null);
  });
});

describe('e2e: upstream OIDC sign-in when not configured', function () {
  this.timeout(30_000);

  it('shows no button and answers 404 on both routes', async () => {
    const server = await startOAuthServer();
    try {
      const web = new WebClient(server.url, server.hosts.app);
      const page = await web.get('/sign-in');
      expect(page.status).to.equal(200);
      expect(page.text).to.contain('>Sign in</button>');
      expect(page.text).to.not.contain('/sign-in/oidc');
      expect(page.text).to.not.contain('Sign in with');
      expect((await web.get('/sign-in/oidc?return_to=%2Faccount')).status).to.equal(404);
      expect((await web.get('/sign-in/oidc/callback?code=x&state=y')).status).to.equal(404);
      expect([...web.cookies.keys()]).to.not.include('dashpub_oidc_attempt');
    } finally {
      await server.close();
    }
  });
});
