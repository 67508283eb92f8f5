import { expect } from 'chai';
import { NodeSecretTokens } from '../../adapters/crypto/node-secret-tokens.js';
import { MemoryOAuthStore } from '../../adapters/memory/memory-oauth-store.js';
import { CachingTokenVerifier } from '../../application/auth/cached-token-verifier.js';
import { Grants } from '../../application/auth/grants.js';
import { OAuthTokenVerifier } from '../../application/auth/verify-access-token.js';
import { AccountStore } from '../../application/ports/account-store.js';
import { OAuthStore } from '../../application/ports/oauth-store.js';
import type { TokenInvalidationListener, TokenInvalidations } from '../../application/ports/token-invalidations.js';
import { TokenVerifier } from '../../application/ports/token-verifier.js';
import { ACCESS_TOKEN_MAX_SECONDS } from '../../domain/oauth.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { TestClock } from '../support/oauth-kit.js';
import { testSettings } from '../support/settings.js';
import { mintAccessToken } from '../support/tokens.js';

/** A channel the test switches on and off, and speaks on. */
class HandChannel implements TokenInvalidations {
  live = true;
  private readonly listeners: TokenInvalidationListener[] = [];
  subscribe(listener: TokenInvalidationListener): void {
    this.listeners.push(listener);
  }
  set(live: boolean): void {
    this.live = live;
    for (const listener of this.listeners) listener.reset();
  }
  revoked(grantId: string): void {
    for (const listener of this.listeners) listener.invalidated({ kind: 'grant', id: grantId });
  }
}

describe('application: the verified-token cache', () => {
  let app: AppContainer;
  let clock: TestClock;
  let userId: string;

  beforeEach(async () => {
    clock = new TestClock(Date.now());
    app = await buildContainer(testSettings(), { storage: 'memory', clock, refreshWorkers: false });
    userId = (await app.container.get<AccountStore>(AccountStore).createUser({ handle: 'ada', email: 'ada@example.com', passwordHash: null, plan: 'free' })).id;
  });

  afterEach(() => app.close());

  /** A cache over the container's store with a hand channel, counting the store's lookups. */
  function handCache(capacity?: number) {
    const store = app.container.get<OAuthStore>(OAuthStore);
    const counted = { lookups: 0 };
    const inner = new OAuthTokenVerifier(store, new NodeSecretTokens(), clock);
    const lookup = inner.lookup.bind(inner);
    inner.lookup = (hash) => {
      counted.lookups++;
      return lookup(hash);
    };
    const channel = new HandChannel();
    return { cache: new CachingTokenVerifier(inner, channel, new NodeSecretTokens(), clock, capacity), channel, counted, inner };
  }

  it('in memory, a revoke through Grants stops the remembered token at once', async () => {
    const minted = await mintAccessToken(app.container, { userId });
    const verifier = app.container.get<TokenVerifier>(TokenVerifier);
    expect(verifier).to.be.instanceOf(CachingTokenVerifier);
    expect(await verifier.verify(minted.access_token)).to.not.equal(null);
    expect((verifier as CachingTokenVerifier).size).to.equal(1);
    await app.container.get(Grants).revoke(minted.grantId);
    expect(await verifier.verify(minted.access_token)).to.equal(null);
  });

  it('never keeps a token past its expiry', async () => {
    const { cache } = handCache();
    const minted = await mintAccessToken(app.container, { userId });
    expect(await cache.verify(minted.access_token)).to.not.equal(null);
    clock.advance(ACCESS_TOKEN_MAX_SECONDS - 1);
    expect(await cache.verify(minted.access_token)).to.not.equal(null);
    clock.advance(1);
    expect(await cache.verify(minted.access_token)).to.equal(null);
  });

  it('answers from memory only while the channel is live, and forgets everything at each edge', async () => {
    const { cache, channel, counted } = handCache();
    const minted = await mintAccessToken(app.container, { userId });
    await cache.verify(minted.access_token);
    await cache.verify(minted.access_token);
    expect(counted.lookups).to.equal(1);
    channel.set(false);
    expect(cache.size).to.equal(0);
    await cache.verify(minted.access_token);
    await cache.verify(minted.access_token);
    expect([counted.lookups, cache.size]).to.deep.equal([3, 0]);
    channel.set(true);
    await cache.verify(minted.access_token);
    await cache.verify(minted.access_token);
    expect([counted.lookups, cache.size]).to.deep.equal([4, 1]);
  });

  it('answers for a token at once only when verify would answer it from memory', async () => {
    const { cache, channel, counted } = handCache();
    const minted = await mintAccessToken(app.container, { userId });
    expect(cache.remembered(minted.access_token)).to.equal(undefined);
    const verified = await cache.verify(minted.access_token);
    expect(cache.remembered(minted.access_token)).to.deep.equal(verified);
    expect(cache.remembered('x'.repeat(43))).to.equal(undefined);
    expect(cache.remembered('not a token')).to.equal(undefined);
    channel.set(false);
    await cache.verify(minted.access_token);
    expect(cache.remembered(minted.access_token)).to.equal(undefined);
    channel.set(true);
    await cache.verify(minted.access_token);
    channel.revoked(minted.grantId);
    expect(cache.remembered(minted.access_token)).to.equal(undefined);
    await cache.verify(minted.access_token);
    clock.advance(ACCESS_TOKEN_MAX_SECONDS);
    expect(cache.remembered(minted.access_token)).to.equal(undefined);
    // Four verifies, four lookups: remembered never asks the store.
    expect(counted.lookups).to.equal(4);
  });

  it('does not remember a lookup that was under way when a change was heard', async () => {
    const { cache, channel, inner } = handCache();
    const minted = await mintAccessToken(app.container, { userId });
    const lookup = inner.lookup.bind(inner);
    inner.lookup = async (hash) => {
      const found = await lookup(hash); // read before the revocation commits…
      channel.revoked(minted.grantId); // …which is heard before the answer comes back
      return found;
    };
    expect(await cache.verify(minted.access_token)).to.not.equal(null);
    expect(cache.size).to.equal(0);
  });

  it('keeps at most its capacity, dropping the least recently used, and never remembers refusals', async () => {
    const { cache, counted } = handCache(2);
    const [a, b, c] = await Promise.all([1, 2, 3].map(() => mintAccessToken(app.container, { userId })));
    await cache.verify(a!.access_token);
    await cache.verify(b!.access_token);
    await cache.verify(a!.access_token);
    await cache.verify(c!.access_token); // b goes
    counted.lookups = 0;
    await cache.verify(a!.access_token);
    await cache.verify(c!.access_token);
    expect(counted.lookups).to.equal(0);
    await cache.verify(b!.access_token);
    expect(counted.lookups).to.equal(1);
    const unknown = new NodeSecretTokens().generate();
    expect(await cache.verify(unknown)).to.equal(null);
    expect(await cache.verify(unknown)).to.equal(null);
    expect(counted.lookups).to.equal(3);
    expect(await cache.verify('not a token')).to.equal(null);
    expect(counted.lookups).to.equal(3);
  });

  it('reports a revocation inside a store transaction only once it is over', async () => {
    const { InvalidatingOAuthStore } = await import('../../application/auth/invalidating-oauth-store.js');
    const heard: string[] = [];
    const store = new InvalidatingOAuthStore(new MemoryOAuthStore(), (change) => heard.push(change.id));
    await store.transaction(async (tx) => {
      await tx.revokeGrant('g1', new Date(), 'test');
      expect(heard).to.deep.equal([]);
    });
    expect(heard).to.deep.equal(['g1']);
    await store.revokeGrant('g2', new Date(), 'test');
    expect(heard).to.deep.equal(['g1', 'g2']);
  });
});
