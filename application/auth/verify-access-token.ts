import { inject, injectable } from 'inversify';
import { Clock } from '../ports/clock.js';
import { OAuthStore } from '../ports/oauth-store.js';
import { SecretTokens } from '../ports/secret-tokens.js';
import type { Principal, TokenVerifier } from '../ports/token-verifier.js';

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
    const tokenHash = this.secrets.digest(accessToken);
    const found = await this.store.findAccessToken(tokenHash);
    if (!found || !this.secrets.same(found.token.tokenHash, tokenHash)) return null;
    const { token, grant } = found;
    const now = this.clock.now();
    if (token.expiresAt <= now || grant.revokedAt !== null || grant.sessionExpiresAt <= now) return null;
    return { userId: grant.userId, grantId: grant.id, lock: grant.lock, scope: grant.scope };
  }
}
