import type {
  AccessTokenRecord,
  AuthorizationCodeRecord,
  AuthorizationRequestRecord,
  GrantRecord,
  OAuthClientRecord,
  OAuthData,
  OAuthStore,
  WebSessionRecord,
} from '../ports/oauth-store.js';
import type { TokenInvalidation } from '../ports/token-invalidations.js';
import type { RefreshChain } from '../../domain/oauth.js';

/** Hands every call to `data`; revocations also go to `revoked` (after the write is done). */
class ForwardingOAuthData implements OAuthData {
  constructor(
    private readonly data: OAuthData,
    private readonly revoked: (grantId: string) => void,
  ) {}

  insertClient(client: OAuthClientRecord) { return this.data.insertClient(client); }
  findClient(id: string) { return this.data.findClient(id); }
  saveClient(client: OAuthClientRecord) { return this.data.saveClient(client); }
  insertAuthorizationRequest(request: AuthorizationRequestRecord) { return this.data.insertAuthorizationRequest(request); }
  findAuthorizationRequest(handleHash: string) { return this.data.findAuthorizationRequest(handleHash); }
  deleteAuthorizationRequest(handleHash: string) { return this.data.deleteAuthorizationRequest(handleHash); }
  insertGrant(grant: GrantRecord) { return this.data.insertGrant(grant); }
  findGrant(id: string) { return this.data.findGrant(id); }
  listGrants(filter: { userId?: string }) { return this.data.listGrants(filter); }
  updateRefreshChain(grantId: string, chain: RefreshChain) { return this.data.updateRefreshChain(grantId, chain); }
  async revokeGrant(grantId: string, at: Date, reason: string) {
    try {
      return await this.data.revokeGrant(grantId, at, reason);
    } finally {
      this.revoked(grantId);
    }
  }
  insertCode(code: AuthorizationCodeRecord) { return this.data.insertCode(code); }
  findCode(codeHash: string) { return this.data.findCode(codeHash); }
  markCodeUsed(codeHash: string, at: Date) { return this.data.markCodeUsed(codeHash, at); }
  insertAccessToken(token: AccessTokenRecord) { return this.data.insertAccessToken(token); }
  findAccessToken(tokenHash: string) { return this.data.findAccessToken(tokenHash); }
  findAccessTokenForUse(tokenHash: string) { return this.data.findAccessTokenForUse(tokenHash); }
  insertRefreshToken(token: { tokenHash: string; grantId: string; createdAt: Date }) { return this.data.insertRefreshToken(token); }
  findRefreshTokenGrant(tokenHash: string) { return this.data.findRefreshTokenGrant(tokenHash); }
  insertWebSession(session: WebSessionRecord) { return this.data.insertWebSession(session); }
  findWebSession(tokenHash: string) { return this.data.findWebSession(tokenHash); }
  deleteWebSession(tokenHash: string) { return this.data.deleteWebSession(tokenHash); }
  purgeExpired(now: Date) { return this.data.purgeExpired(now); }
}

/**
 * The OAuthStore with this process's own revocations reported at once to `invalidate` (the token
 * cache), instead of waiting for the database's notification to come back: the next request after a
 * revoke this process made is refused, however the notification races it. Inside a transaction the
 * report waits for its end (a reader before the commit still saw the grant live).
 */
export class InvalidatingOAuthStore extends ForwardingOAuthData implements OAuthStore {
  constructor(
    private readonly store: OAuthStore,
    private readonly invalidate: (change: TokenInvalidation) => void,
  ) {
    super(store, (id) => invalidate({ kind: 'grant', id }));
  }

  async transaction<T>(work: (tx: OAuthData) => Promise<T>): Promise<T> {
    const revoked: string[] = [];
    try {
      return await this.store.transaction((tx) => work(new ForwardingOAuthData(tx, (id) => revoked.push(id))));
    } finally {
      for (const id of revoked) this.invalidate({ kind: 'grant', id });
    }
  }
}
