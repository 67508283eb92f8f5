import { BoundedCache } from '../../shared/bounded-cache.js';
import type { Clock } from '../ports/clock.js';
import type { SecretTokens } from '../ports/secret-tokens.js';
import type { TokenInvalidation, TokenInvalidations } from '../ports/token-invalidations.js';
import type { Principal, TokenVerifier } from '../ports/token-verifier.js';
import type { OAuthTokenVerifier, VerifiedToken } from './verify-access-token.js';

/** How many verified tokens a process remembers by default (a few hundred bytes each). */
export const DEFAULT_TOKEN_CACHE_ENTRIES = 10_000;

/**
 * Remembers verified tokens so the MCP endpoint's hot path needs no query
 * (docs/decisions/0038-token-cache.md). Keyed by the token's digest, bounded (least recently used go first), and no
 * entry outlives its token or its grant's session. Only answers from memory while the invalidation channel is live;
 * otherwise every call is verified against the store, as without a cache (fail closed). Unknown, expired and revoked
 * tokens are never remembered: refusals always ask the store.
 *
 * A lookup already under way when a change is heard (or the channel drops) is not remembered: it may
 * have read the row before the change committed. The `epoch` counts those events.
 */
export class CachingTokenVerifier implements TokenVerifier {
  private readonly entries: BoundedCache<VerifiedToken>;
  private epoch = 0;

  constructor(
    private readonly inner: OAuthTokenVerifier,
    private readonly invalidations: TokenInvalidations,
    private readonly secrets: SecretTokens,
    private readonly clock: Clock,
    capacity = DEFAULT_TOKEN_CACHE_ENTRIES,
  ) {
    this.entries = new BoundedCache<VerifiedToken>({ capacity, ttlMs: Infinity });
    invalidations.subscribe({ invalidated: (change) => this.invalidate(change), reset: () => this.clear() });
  }

  remembered(accessToken: string): Principal | undefined {
    if (!this.invalidations.live || !this.secrets.wellFormed(accessToken)) return undefined;
    return this.fromMemory(this.secrets.digest(accessToken));
  }

  async verify(accessToken: string): Promise<Principal | null> {
    if (!this.secrets.wellFormed(accessToken)) return null;
    const tokenHash = this.secrets.digest(accessToken);
    const hit = this.fromMemory(tokenHash);
    if (hit) return hit;
    const epoch = this.epoch;
    const verified = await this.inner.lookup(tokenHash);
    if (!verified) return null;
    if (this.invalidations.live && epoch === this.epoch) {
      this.entries.set(tokenHash, freeze(verified), this.clock.now().getTime(), verified.validUntil.getTime());
    }
    return verified.principal;
  }

  /** The remembered principal of a digest, only while the invalidation channel is live (fail closed). */
  private fromMemory(tokenHash: string): Principal | undefined {
    if (!this.invalidations.live) return undefined;
    return this.entries.get(tokenHash, this.clock.now().getTime())?.principal;
  }

  /** Forgets every token of a grant, or of a user's grants; called once the change is committed. */
  invalidate(change: TokenInvalidation): void {
    this.epoch++;
    if (change.kind === 'grant') this.entries.deleteWhere((v) => v.principal.grantId === change.id);
    else if (change.kind === 'user') this.entries.deleteWhere((v) => v.principal.userId === change.id);
  }

  clear(): void {
    this.epoch++;
    this.entries.clear();
  }

  /** How many tokens are remembered (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }
}

/** One principal object is handed to many requests: none of them may change it for the others. */
function freeze(verified: VerifiedToken): VerifiedToken {
  Object.freeze(verified.principal.lock);
  Object.freeze(verified.principal);
  return verified;
}
