import { expect } from 'chai';
import { refusal } from '../support/refusal.js';
import { SecretBox } from '../../adapters/crypto/secret-box.js';
import { OidcSignIn } from '../../application/auth/oidc-sign-in.js';
import { WebAccounts } from '../../application/auth/web-accounts.js';
import { IdentityProvider, type SignInChecks, type UpstreamIdentity } from '../../application/ports/identity-provider.js';
import { SecretSealer } from '../../application/ports/secret-sealer.js';
import { WebSessions } from '../../application/ports/web-sessions.js';
import type { Settings } from '../../application/ports/settings.js';
import { DomainError } from '../../domain/errors.js';
import { UPSTREAM_ATTEMPT_SECONDS } from '../../domain/upstream-sign-in.js';
import { makeAuthKit, type AuthKit } from '../support/oauth-kit.js';
import { aUser, aWorkspace } from '../support/mothers.js';

const ISSUER = 'https://idp.example.com';

/**
 * The provider's side without HTTP: `signInAs` picks who signs in next; `beginSignIn` records the checks
 * it handed out; `completeSignIn` accepts only the state of the attempt it is given back, as the real
 * adapter (openid-client) does, and answers the chosen identity.
 */
class FakeIdentityProvider implements IdentityProvider {
  readonly displayName = 'Acme SSO';
  private next: UpstreamIdentity | null = null;
  private counter = 0;

  signInAs(claims: Partial<UpstreamIdentity> & { subject: string }): void {
    this.next = { issuer: ISSUER, email: null, emailVerified: false, preferredUsername: null, ...claims };
  }

  async beginSignIn(): Promise<{ authorizationUrl: string; checks: SignInChecks }> {
    const n = ++this.counter;
    const checks = { state: `state-${n}`, nonce: `nonce-${n}`, codeVerifier: `verifier-${n}` };
    return { authorizationUrl: `${ISSUER}/authorize?state=${checks.state}`, checks };
  }

  async completeSignIn(callbackQuery: string, checks: SignInChecks): Promise<UpstreamIdentity> {
    if (new URLSearchParams(callbackQuery).get('state') !== checks.state) {
      throw new DomainError('unauthenticated', 'The answer from Acme SSO could not be verified for this sign-in attempt, so you were not signed in. Start again.');
    }
    if (!this.next) throw new Error('the test chose no identity');
    return this.next;
  }
}

describe('upstream OIDC sign-in (use case, fake provider)', () => {
  let kit: AuthKit;
  let provider: FakeIdentityProvider;
  const signIn = () => kit.container.get(OidcSignIn);

  const setUp = (settings: Partial<Settings> = {}, withProvider = true) => {
    kit = makeAuthKit({ settings });
    provider = new FakeIdentityProvider();
    kit.container.bind<SecretSealer>(SecretSealer).toConstantValue(SecretBox.fromKey('unit-test-secret', 'upstream sign-in attempt'));
    if (withProvider) kit.container.bind<IdentityProvider>(IdentityProvider).toConstantValue(provider);
  };

  /** One whole round trip: start, the provider's answer with the attempt's state, finish. */
  const roundTrip = async (claims: Partial<UpstreamIdentity> & { subject: string }, returnTo = '/account', signedInUserId: string | null = null) => {
    provider.signInAs(claims);
    const started = await signIn().start(returnTo);
    const state = new URL(started.authorizationUrl).searchParams.get('state')!;
    return signIn().finish({ callbackQuery: `code=abc&state=${state}`, attempt: started.attempt, signedInUserId });
  };
  const passwordUser = (handle: string, email: string) =>
    kit.container.get(WebAccounts).signUp({ handle, email, password: 'correct horse battery', clientIp: '10.0.0.1' });

  beforeEach(() => setUp());

  describe('starting', () => {
    it('sends the browser to the provider and seals the checks and the return target for ten minutes', async () => {
      const started = await signIn().start('/consent?request=abc');
      expect(started.authorizationUrl).to.equal(`${ISSUER}/authorize?state=state-1`);
      expect(started.maxAgeSeconds).to.equal(UPSTREAM_ATTEMPT_SECONDS).and.equal(600);
      // Opaque to the browser: neither the checks nor the target can be read (or changed) there.
      for (const secret of ['state-1', 'nonce-1', 'verifier-1', 'consent']) expect(started.attempt).to.not.contain(secret);
      expect(signIn().returnTargetOf(started.attempt)).to.equal('/consent?request=abc');
    });

    it('keeps only return targets on the app itself', async () => {
      expect(signIn().returnTargetOf((await signIn().start('')).attempt)).to.equal('/account');
      expect(signIn().returnTargetOf((await signIn().start('//evil.example/x')).attempt)).to.equal('/');
      expect(signIn().returnTargetOf((await signIn().start('https://evil.example/')).attempt)).to.equal('/');
      expect(signIn().returnTargetOf((await signIn().start('/viewer/sign-in?subdomain=ada&state=s')).attempt)).to.equal('/viewer/sign-in?subdomain=ada&state=s');
    });

    it('is unavailable, and says so, when no provider is configured', async () => {
      setUp({}, false);
      expect(signIn().providerName).to.equal(null);
      expect((await refusal(signIn().start('/account'))).code).to.equal('not_found');
      setUp();
      expect(signIn().providerName).to.equal('Acme SSO');
    });
  });

  describe('finding the account', () => {
    it('signs up a new person as a free account without a password, linked, with a web session', async () => {
      const done = await roundTrip({ subject: 'sub-1', email: 'Ada@Example.com', emailVerified: true, preferredUsername: 'Ada.Lovelace' }, '/connections');
      expect(done.match).to.equal('signed_up');
      expect(done.returnTo).to.equal('/connections');
      expect(done.user).to.include({ handle: 'ada-lovelace', email: 'ada@example.com', plan: 'free', hasPassword: false });
      expect((await kit.accounts.findUserByHandle('ada-lovelace'))!.passwordHash).to.equal(null);
      expect(await kit.container.get<WebSessions>(WebSessions).resolve(done.session.token)).to.deep.equal({ userId: done.user.id });
      expect((await kit.accounts.findUserByIdentity(ISSUER, 'sub-1'))!.id).to.equal(done.user.id);
    });

    it('finds a linked person by subject, whatever the provider now says about the email', async () => {
      const first = await roundTrip({ subject: 'sub-1', email: 'ada@example.com', emailVerified: true });
      const again = await roundTrip({ subject: 'sub-1', email: 'ada@elsewhere.example', emailVerified: false, preferredUsername: 'someone-else' });
      expect(again.match).to.equal('linked');
      expect(again.user.id).to.equal(first.user.id);
      const noEmail = await roundTrip({ subject: 'sub-1' });
      expect(noEmail.user.id).to.equal(first.user.id);
      expect((await kit.accounts.listUsers()).length).to.equal(1);
    });

    it('links a password account by a verified email only while its owner is signed in', async () => {
      const { user } = await passwordUser('grace', 'grace@example.com');
      const stranger = await passwordUser('mallory', 'mallory@example.com');
      const claims = { subject: 'sub-g', email: 'GRACE@example.com', emailVerified: true, preferredUsername: 'ghopper' };
      const expected =
        'An account with the email grace@example.com already exists and has a password. Sign in with your password first, then choose Sign in with Acme SSO to link the two.';
      for (const signedIn of [null, stranger.user.id]) {
        const error = await refusal(roundTrip(claims, '/account', signedIn));
        expect([error.code, error.message]).to.deep.equal(['forbidden', expected]);
      }
      expect(await kit.accounts.findUserByIdentity(ISSUER, 'sub-g')).to.equal(null);

      const done = await roundTrip(claims, '/account', user.id);
      expect(done.match).to.equal('verified_email');
      expect(done.user).to.include({ id: user.id, handle: 'grace', hasPassword: true });
      expect((await kit.accounts.findUserByIdentity(ISSUER, 'sub-g'))!.id).to.equal(user.id);
      // From now on the link decides, even without a verified email.
      expect((await roundTrip({ subject: 'sub-g', email: 'grace@example.com', emailVerified: false })).user.id).to.equal(user.id);
    });

    it('does not link an existing account by an unverified email, and creates nothing', async () => {
      await passwordUser('grace', 'grace@example.com');
      const error = await refusal(roundTrip({ subject: 'sub-x', email: 'grace@example.com', emailVerified: false, preferredUsername: 'grace2' }));
      expect(error.code).to.equal('forbidden');
      expect(error.message).to.equal(
        'An account with the email grace@example.com already exists, but Acme SSO does not confirm that this address is yours, so the sign-in was not linked to it. Sign in with your password instead.',
      );
      expect(await kit.accounts.findUserByIdentity(ISSUER, 'sub-x')).to.equal(null);
      expect((await kit.accounts.listUsers()).map((u) => u.handle)).to.deep.equal(['grace']);
    });

    it('starts no account on an address the provider does not vouch for (it could be someone else\'s)', async () => {
      const error = await refusal(roundTrip({ subject: 'attacker-sub', email: 'victim@corp.example', emailVerified: false, preferredUsername: 'victim' }));
      expect([error.code, error.message]).to.deep.equal([
        'forbidden',
        'Acme SSO does not confirm that victim@corp.example is your address, so no account was created for it. Verify the address at Acme SSO and try again, or sign up with a password.',
      ]);
      expect(await kit.accounts.listUsers()).to.deep.equal([]);
      // The owner of the address, verified, then gets an account of their own.
      expect((await roundTrip({ subject: 'victim-sub', email: 'victim@corp.example', emailVerified: true })).match).to.equal('signed_up');
    });

    it('never hands an account to another sign-in of the same provider that now has its address', async () => {
      const alice = await roundTrip({ subject: 'alice-sub', email: 'ops@corp.example', emailVerified: true });
      const error = await refusal(roundTrip({ subject: 'bob-sub', email: 'ops@corp.example', emailVerified: true }));
      expect([error.code, error.message]).to.deep.equal([
        'forbidden',
        'The account with the email ops@corp.example is linked to another Acme SSO sign-in, so this one was not linked to it. Sign in with that one, or with the account\'s password.',
      ]);
      expect(await kit.accounts.findUserByIdentity(ISSUER, 'bob-sub')).to.equal(null);
      expect((await kit.accounts.identitiesOf(alice.user.id)).map((i) => i.subject)).to.deep.equal(['alice-sub']);
    });

    it('refuses a new person when sign-up is closed, but still links a verified email', async () => {
      setUp({ allowSignup: false });
      const error = await refusal(roundTrip({ subject: 'sub-new', email: 'new@example.com', emailVerified: true }));
      expect([error.code, error.message]).to.deep.equal([
        'forbidden',
        'Sign-up is closed on this service, and no account is linked to this Acme SSO sign-in. Ask its operator for an account.',
      ]);
      expect(await kit.accounts.listUsers()).to.deep.equal([]);
      const operatorMade = await aUser(kit.accounts, { handle: 'opmade', email: 'new@example.com', plan: 'pro' });
      expect((await roundTrip({ subject: 'sub-new', email: 'new@example.com', emailVerified: true })).user.id).to.equal(operatorMade.id);
    });

    it('refuses clearly when the provider shares no usable email and nothing is linked', async () => {
      const missing = await refusal(roundTrip({ subject: 'sub-1', preferredUsername: 'ada' }));
      expect([missing.code, missing.message]).to.deep.equal([
        'invalid_argument',
        'Acme SSO did not share an email address, and this service needs one to find or create your account.',
      ]);
      const junk = await refusal(roundTrip({ subject: 'sub-1', email: 'not an email', emailVerified: true }));
      expect(junk.message).to.equal('Acme SSO shared an email address this service cannot use: "not an email".');
      expect(await kit.accounts.listUsers()).to.deep.equal([]);
    });
  });

  describe('handles of new accounts', () => {
    const handleFor = async (claims: Partial<UpstreamIdentity>, subject = `sub-${Math.random()}`) =>
      (await roundTrip({ emailVerified: true, email: `${subject}@example.com`, ...claims, subject })).user.handle;

    it('derive from preferred_username, else from the email local part', async () => {
      expect(await handleFor({ preferredUsername: 'José_Núñez!!' })).to.equal('jose-nunez');
      expect(await handleFor({ preferredUsername: 'Jane.Doe@corp.example' })).to.equal('jane-doe');
      expect(await handleFor({ email: 'Mary.Major+dash@example.com' })).to.equal('mary-major-dash');
      expect(await handleFor({ preferredUsername: '李' })).to.equal('user');
      const long = await handleFor({ preferredUsername: 'a'.repeat(30) + '.' + 'b'.repeat(30) });
      expect(long).to.equal(`${'a'.repeat(30)}-${'b'.repeat(9)}`).and.have.length(40);
    });

    it('take a numeric suffix when the name is taken by a user or a workspace, or reserved', async () => {
      await passwordUser('ada', 'ada@example.com');
      await aWorkspace(kit.accounts, { slug: 'ada-2', name: 'Ada Two' });
      expect(await handleFor({ preferredUsername: 'ada' })).to.equal('ada-3');
      expect(await handleFor({ preferredUsername: 'ADA' })).to.equal('ada-4');
      expect(await handleFor({ preferredUsername: 'admin' })).to.equal('admin-2');
      const long = 'c'.repeat(45);
      expect(await handleFor({ preferredUsername: long })).to.equal('c'.repeat(40));
      expect(await handleFor({ preferredUsername: long })).to.equal(`${'c'.repeat(38)}-2`);
    });
  });

  describe('refusing an answer', () => {
    it('refuses an answer whose state is not this attempt\'s', async () => {
      provider.signInAs({ subject: 'sub-1', email: 'ada@example.com', emailVerified: true });
      const started = await signIn().start('/account');
      const error = await refusal(signIn().finish({ callbackQuery: 'code=abc&state=forged', attempt: started.attempt, signedInUserId: null }));
      expect(error.code).to.equal('unauthenticated');
      expect(await kit.accounts.listUsers()).to.deep.equal([]);
    });

    it('refuses a missing, tampered or expired attempt', async () => {
      provider.signInAs({ subject: 'sub-1', email: 'ada@example.com', emailVerified: true });
      const lost = 'This sign-in attempt has expired or was started in another browser. Start again.';
      const started = await signIn().start('/account');
      const query = 'code=abc&state=state-1';
      expect((await refusal(signIn().finish({ callbackQuery: query, attempt: null, signedInUserId: null }))).message).to.equal(lost);
      const [version, iv, tag, body] = started.attempt.split(':') as [string, string, string, string];
      const bytes = Buffer.from(body, 'base64');
      bytes[0]! ^= 1;
      const flipped = [version, iv, tag, bytes.toString('base64')].join(':');
      expect((await refusal(signIn().finish({ callbackQuery: query, attempt: flipped, signedInUserId: null }))).message).to.equal(lost);
      const otherKey = SecretBox.fromKey('another-secret', 'upstream sign-in attempt').seal(SecretBox.fromKey('unit-test-secret', 'upstream sign-in attempt').open(started.attempt));
      expect((await refusal(signIn().finish({ callbackQuery: query, attempt: otherKey, signedInUserId: null }))).message).to.equal(lost);
      expect(signIn().returnTargetOf('garbage')).to.equal('/account');

      kit.clock.advance(UPSTREAM_ATTEMPT_SECONDS + 1);
      const expired = await refusal(signIn().finish({ callbackQuery: query, attempt: started.attempt, signedInUserId: null }));
      expect([expired.code, expired.message]).to.deep.equal(['unauthenticated', lost]);
      expect(await kit.accounts.listUsers()).to.deep.equal([]);
    });

    it('never opens an attempt with the key of another purpose', () => {
      const sealed = SecretBox.fromKey('same-secret', 'upstream sign-in attempt').seal('{}');
      expect(() => SecretBox.fromKey('same-secret').open(sealed)).to.throw();
      expect(SecretBox.fromKey('same-secret', 'upstream sign-in attempt').open(sealed)).to.equal('{}');
    });
  });
});
