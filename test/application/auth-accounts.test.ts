import { expect } from 'chai';
import { refusal } from '../support/refusal.js';
import { ScryptPasswordHasher } from '../../adapters/crypto/scrypt-password-hasher.js';
import { NodeSecretTokens } from '../../adapters/crypto/node-secret-tokens.js';
import { WebAccounts } from '../../application/auth/web-accounts.js';
import { WebSessionService } from '../../application/auth/web-session-service.js';
import { WebSessions } from '../../application/ports/web-sessions.js';
import { SIGN_IN_ATTEMPTS, WEB_SESSION_SECONDS } from '../../domain/oauth.js';
import { makeAuthKit, TEST_SCRYPT_COST, type AuthKit } from '../support/oauth-kit.js';
import { aWorkspace } from '../support/mothers.js';


describe('web accounts: sign-up, sign-in, sessions', () => {
  let kit: AuthKit;
  const accounts = () => kit.container.get(WebAccounts);
  const sessions = () => kit.container.get<WebSessions>(WebSessions);

  beforeEach(() => {
    kit = makeAuthKit();
  });

  it('signs up with a hashed password and a session', async () => {
    const { user, session } = await accounts().signUp({ handle: 'alice', email: 'Alice@Example.com', password: 'correct horse battery', clientIp: '1.1.1.1' });
    expect(user).to.include({ handle: 'alice', email: 'alice@example.com', plan: 'free', hasPassword: true });
    expect(user).to.not.have.property('passwordHash');
    const stored = await kit.accounts.findUserByHandle('alice');
    expect(stored!.passwordHash).to.match(/^scrypt\$/);
    expect(stored!.passwordHash).to.not.contain('correct horse');
    expect(await sessions().resolve(session.token)).to.deep.equal({ userId: user.id });
  });

  it('refuses sign-up when ALLOW_SIGNUP is off', async () => {
    kit = makeAuthKit({ settings: { allowSignup: false } });
    const error = await refusal(accounts().signUp({ handle: 'alice', email: 'a@example.com', password: 'correct horse battery', clientIp: '1.1.1.1' }));
    expect(error.code).to.equal('forbidden');
    expect(await kit.accounts.findUserByHandle('alice')).to.equal(null);
  });

  it('refuses bad handles, short passwords and taken names with the rules\' texts', async () => {
    expect((await refusal(accounts().signUp({ handle: 'Bad Name', email: 'a@example.com', password: 'correct horse battery', clientIp: 'x' }))).message).to.match(/must match/);
    expect((await refusal(accounts().signUp({ handle: 'admin', email: 'a@example.com', password: 'correct horse battery', clientIp: 'x' }))).message).to.match(/reserved/);
    expect((await refusal(accounts().signUp({ handle: 'alice', email: 'a@example.com', password: 'short', clientIp: 'x' }))).message).to.match(/at least 10/);
    await accounts().signUp({ handle: 'alice', email: 'a@example.com', password: 'correct horse battery', clientIp: 'x' });
    expect((await refusal(accounts().signUp({ handle: 'alice', email: 'b@example.com', password: 'correct horse battery', clientIp: 'x' }))).code).to.equal('conflict');
  });

  it('signs in with the right password only, with one message for every failure', async () => {
    await accounts().signUp({ handle: 'alice', email: 'alice@example.com', password: 'correct horse battery', clientIp: '1.1.1.1' });
    const { user, session } = await accounts().signIn({ email: ' ALICE@example.com ', password: 'correct horse battery', clientIp: '1.1.1.1' });
    expect(user.handle).to.equal('alice');
    expect(await sessions().resolve(session.token)).to.deep.equal({ userId: user.id });
    const wrong = await refusal(accounts().signIn({ email: 'alice@example.com', password: 'wrong password!', clientIp: '1.1.1.1' }));
    const unknown = await refusal(accounts().signIn({ email: 'nobody@example.com', password: 'wrong password!', clientIp: '1.1.1.1' }));
    expect([wrong.code, wrong.message]).to.deep.equal(['unauthenticated', 'The email or password is not correct.']);
    expect(unknown.message).to.equal(wrong.message);
  });

  it('throttles guessing per email and address', async () => {
    await accounts().signUp({ handle: 'alice', email: 'alice@example.com', password: 'correct horse battery', clientIp: '1.1.1.1' });
    for (let i = 0; i < SIGN_IN_ATTEMPTS.points; i++) {
      await refusal(accounts().signIn({ email: 'alice@example.com', password: `guess ${i} guess`, clientIp: '6.6.6.6' }));
    }
    const throttled = await refusal(accounts().signIn({ email: 'alice@example.com', password: 'correct horse battery', clientIp: '6.6.6.6' }));
    expect(throttled.code).to.equal('rate_limited');
    // The owner, elsewhere, is not locked out.
    expect((await accounts().signIn({ email: 'alice@example.com', password: 'correct horse battery', clientIp: '1.1.1.1' })).user.handle).to.equal('alice');
    kit.clock.advance(SIGN_IN_ATTEMPTS.windowSeconds);
    expect((await accounts().signIn({ email: 'alice@example.com', password: 'correct horse battery', clientIp: '6.6.6.6' })).user.handle).to.equal('alice');
  });

  it('ends sessions on sign-out and on expiry', async () => {
    const { session } = await accounts().signUp({ handle: 'alice', email: 'alice@example.com', password: 'correct horse battery', clientIp: '1.1.1.1' });
    const service = kit.container.get(WebSessionService);
    const second = await service.start((await kit.accounts.findUserByHandle('alice'))!.id);
    await service.end(session.token);
    expect(await sessions().resolve(session.token)).to.equal(null);
    expect(await sessions().resolve(second.token)).to.not.equal(null);
    kit.clock.advance(WEB_SESSION_SECONDS);
    expect(await sessions().resolve(second.token)).to.equal(null);
    expect(await sessions().resolve('garbage')).to.equal(null);
  });

  it('shows the account with its workspaces', async () => {
    const { user } = await accounts().signUp({ handle: 'alice', email: 'alice@example.com', password: 'correct horse battery', clientIp: '1.1.1.1' });
    const team = await aWorkspace(kit.accounts, { slug: 'team', name: 'The Team' });
    await kit.accounts.addMember(team.id, user.id, 'admin');
    const overview = await accounts().overview(user.id);
    expect(overview!.user.handle).to.equal('alice');
    expect(overview!.workspaces).to.deep.equal([{ slug: 'team', name: 'The Team', role: 'admin' }]);
  });
});

describe('crypto adapters', () => {
  it('scrypt verifies the right password and refuses others and malformed hashes', async () => {
    const hasher = new ScryptPasswordHasher(TEST_SCRYPT_COST);
    const hash = await hasher.hash('correct horse battery');
    expect(hash.split('$')).to.have.length(6);
    expect(await hasher.hash('correct horse battery')).to.not.equal(hash);
    expect(await hasher.verify('correct horse battery', hash)).to.equal(true);
    expect(await hasher.verify('correct horse batterY', hash)).to.equal(false);
    expect(await hasher.verify('x', 'plaintext')).to.equal(false);
    expect(await hasher.verify('x', 'scrypt$0$8$1$aa$bb')).to.equal(false);
  });

  it('secret tokens are 256-bit base64url, digested with SHA-256, compared in constant time', () => {
    const tokens = new NodeSecretTokens();
    const token = tokens.generate();
    expect(token).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(tokens.generate()).to.not.equal(token);
    expect(tokens.wellFormed(token)).to.equal(true);
    for (const bad of [`${token}x`, token.slice(1), `${token.slice(1)}=`, 42, null]) expect(tokens.wellFormed(bad)).to.equal(false);
    expect(tokens.digest('abc')).to.equal('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(tokens.same('abc', 'abc')).to.equal(true);
    expect(tokens.same('abc', 'abd')).to.equal(false);
    expect(tokens.same('abc', 'abcd')).to.equal(false);
    // RFC 7636 appendix B.
    expect(tokens.s256('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).to.equal('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
  });
});
