import { inject, injectable } from 'inversify';
import { accessTokenExpiry, EMPTY_REFRESH_CHAIN, OAuthError, secondsUntil, type RefreshChain } from '../../domain/oauth.js';
import type { GrantRecord, OAuthData } from '../ports/oauth-store.js';
import { SecretTokens } from '../ports/secret-tokens.js';

/** The token endpoint's success body (RFC 6749 §5.1). */
export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

/**
 * Mints an access token and the grant's next refresh token, inside the caller's transaction. The
 * access token ends at most 50 minutes on and before the grant's session does.
 */
@injectable()
export class TokenIssuer {
  constructor(@inject(SecretTokens) private readonly secrets: SecretTokens) {}

  async issue(
    tx: OAuthData,
    grant: GrantRecord,
    now: Date,
    nextChain: (newRefreshHash: string) => RefreshChain = (hash) => ({ ...EMPTY_REFRESH_CHAIN, currentHash: hash }),
  ): Promise<TokenResponse> {
    const expiresAt = accessTokenExpiry(now, grant.sessionExpiresAt);
    if (!expiresAt) throw new OAuthError('invalid_grant', 'the session of this authorization has ended; authorize again');
    const accessToken = this.secrets.generate();
    await tx.insertAccessToken({ tokenHash: this.secrets.digest(accessToken), grantId: grant.id, createdAt: now, expiresAt });
    const refreshToken = this.secrets.generate();
    const refreshHash = this.secrets.digest(refreshToken);
    await tx.insertRefreshToken({ tokenHash: refreshHash, grantId: grant.id, createdAt: now });
    await tx.updateRefreshChain(grant.id, nextChain(refreshHash));
    return {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: secondsUntil(now, expiresAt),
      refresh_token: refreshToken,
      scope: grant.scope,
    };
  }
}
