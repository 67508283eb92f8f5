import { expect } from 'chai';
import { refusal } from '../support/refusal.js';
import { OpenIdIdentityProvider } from '../../adapters/oidc/openid-identity-provider.js';
import { startFakeOidcProvider, type FakeOidcProvider } from '../support/fake-oidc-provider.js';
import { request } from '../support/http.js';

const REDIRECT_URI = 'http://app.localhost:8787/sign-in/oidc/callback';

/** The openid-client adapter against the fake provider, as a public client (no secret: PKCE alone). */
describe('adapter: OpenID Connect identity provider (openid-client)', function () {
  this.timeout(20_000);
  let fake: FakeOidcProvider;
  let provider: OpenIdIdentityProvider;

  before(async () => {
    fake = await startFakeOidcProvider({ clientId: 'public-client' });
    provider = new OpenIdIdentityProvider({ issuer: fake.issuer, clientId: 'public-client', clientSecret: null, displayName: 'Fake', redirectUri: REDIRECT_URI });
  });
  after(() => fake?.close());

  const answerFor = async (authorizationUrl: string) => {
    const back = new URL((await request({ url: authorizationUrl })).headers.location!);
    expect(`${back.origin}${back.pathname}`).to.equal(REDIRECT_URI);
    return back.search.slice(1);
  };

  it('signs in a public client with PKCE and maps the ID token claims', async () => {
    fake.signInAs({ sub: 'pub-1', email: 'pat@example.com', email_verified: true, preferred_username: 'pat' });
    const { authorizationUrl, checks } = await provider.beginSignIn();
    const identity = await provider.completeSignIn(await answerFor(authorizationUrl), checks);
    expect(identity).to.deep.equal({ issuer: fake.issuer, subject: 'pub-1', email: 'pat@example.com', emailVerified: true, preferredUsername: 'pat' });
    expect(fake.lastTokenAuthorization).to.equal(undefined);
  });

  it('treats a missing or non-boolean email_verified as unverified', async () => {
    fake.signInAs({ sub: 'pub-2', email: 'x@example.com' });
    const first = await provider.beginSignIn();
    expect((await provider.completeSignIn(await answerFor(first.authorizationUrl), first.checks)).emailVerified).to.equal(false);
    fake.signInAs({ sub: 'pub-3', email: 'x@example.com', email_verified: 'true' as unknown as boolean });
    const second = await provider.beginSignIn();
    expect((await provider.completeSignIn(await answerFor(second.authorizationUrl), second.checks)).emailVerified).to.equal(false);
  });

  it('refuses a wrong PKCE verifier (the provider refuses the code)', async () => {
    fake.signInAs({ sub: 'pub-4', email: 'y@example.com' });
    const { authorizationUrl, checks } = await provider.beginSignIn();
    const error = await refusal(provider.completeSignIn(await answerFor(authorizationUrl), { ...checks, codeVerifier: `${checks.codeVerifier}x` }));
    expect(error.code).to.equal('unauthenticated');
  });

  it('says the provider cannot be reached when discovery fails, and tries again next time', async () => {
    const down = new OpenIdIdentityProvider({ issuer: 'http://127.0.0.1:9', clientId: 'c', clientSecret: null, displayName: 'Fake', redirectUri: REDIRECT_URI });
    const error = await refusal(down.beginSignIn());
    expect([error.code, error.message]).to.deep.equal(['unavailable', 'Fake cannot be reached right now. Try again in a moment, or sign in with your password.']);
    expect((await refusal(down.beginSignIn())).code).to.equal('unavailable');
  });

  it('discovers once and keeps the result', async () => {
    fake.signInAs({ sub: 'pub-5' });
    for (let i = 0; i < 3; i++) await provider.beginSignIn();
    expect(fake.discoveryRequests).to.equal(1);
  });

  it('never talks plain http to an issuer that is not a loopback name', async () => {
    // The fake provider itself, under a name the loopback rule does not accept: no request may reach it.
    const port = new URL(fake.issuer).port;
    const remote = new OpenIdIdentityProvider({ issuer: `http://[::ffff:127.0.0.1]:${port}`, clientId: 'c', clientSecret: null, displayName: 'Fake', redirectUri: REDIRECT_URI });
    const before = fake.discoveryRequests;
    expect((await refusal(remote.beginSignIn())).code).to.equal('unavailable');
    expect(fake.discoveryRequests).to.equal(before);
  });
});
