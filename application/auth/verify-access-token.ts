import { inject, injectable } from 'inversify';
import { Clock } from '../ports/clock.js';
import { OAuthStore } from '../ports/oauth-store.js';
import { SecretTokens } from '../ports/secret-tokens.js';
import type { Principal, TokenVerifier } from '../ports/token-verifier.js';

/** A principal with the moment it stops being one (its token's expiry or its session's end, the earlier). */
export interface VerifiedToken {
  principal: Principal;
  validUntil: Date;
}

/**
 * The bearer check of the MCP endpoint: an unexpired access token of a live grant whose session has
 * not ended. Revoking a grant stops its tokens at once. Store failures propagate (fail closed).
 */
@injectable()
export class OAuthTokenVerifier implements TokenVerifier {
  constructor(
    @inject(OAuthStore) private readonly store: OAuthStore,
    @inject(SecretTokens) private readonly secrets: SecretTokens,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async verify(accessToken: string): Promise<Principal | null> {
    if (!this.secrets.wellFormed(accessToken)) return null;
    return (await this.lookup(this.secrets.digest(accessToken)))?.principal ?? null;
  }

  /** The check by the token's digest, one store lookup; null when the token does not (or no longer) authorize. */
  async lookup(tokenHash: string): Promise<VerifiedToken | null> {
    const found = await this.store.findAccessTokenForUse(tokenHash);
    if (!found || !this.secrets.same(found.token.tokenHash, tokenHash)) return null;
    const { token, grant } = found;
    const now = this.clock.now();
    if (token.expiresAt <= now || grant.revokedAt !== null || grant.sessionExpiresAt <= now) return null;
    const principal: Principal = { userId: grant.userId, grantId: grant.id, lock: grant.lock, scope: grant.scope };
    if (found.handle !== undefined) principal.handle = found.handle;
    const validUntil = token.expiresAt < grant.sessionExpiresAt ? token.expiresAt : grant.sessionExpiresAt;
    return { principal, validUntil };
  }
}
