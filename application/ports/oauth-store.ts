import type { RefreshChain } from '../../domain/oauth.js';
import type { GrantLock } from '../../domain/scope.js';

/**
 * Storage of the authorization server and the web app's sign-in sessions. Every token, code, request
 * handle and session cookie is stored only as its SHA-256 digest (`…Hash`, hex) and looked up by it.
 */

export interface OAuthClientRecord {
  /** A UUID for a registered client; the document's URL for a client ID metadata document. */
  id: string;
  /** As registered (control characters removed); null when the client gave none. */
  name: string | null;
  redirectUris: string[];
  grantTypes: string[];
  scope: string | null;
  createdAt: Date;
  /**
   * For a client ID metadata document: until when the copy stored here may stand in for fetching the
   * document again (its Cache-Control, at most 24 hours). Absent or null for a registered client.
   */
  metadataExpiresAt?: Date | null;
}

/** An `/authorize` request waiting for the user's decision on the consent screen. */
export interface AuthorizationRequestRecord {
  handleHash: string;
  clientId: string;
  redirectUri: string;
  state: string | null;
  codeChallenge: string;
  /** What the client asked for, verbatim, shown on the consent screen. */
  requestedScope: string | null;
  /** What the grant will carry. */
  scope: string;
  resource: string;
  createdAt: Date;
  expiresAt: Date;
}

/** What one consent created: a user's authorization of one client, locked to one target. */
export interface GrantRecord {
  id: string;
  userId: string;
  clientId: string;
  lock: GrantLock;
  scope: string;
  resource: string;
  createdAt: Date;
  /** The end of the session minted for this grant; no token outlives it. */
  sessionExpiresAt: Date;
  revokedAt: Date | null;
  revokedReason: string | null;
  refresh: RefreshChain;
}

export interface AuthorizationCodeRecord {
  codeHash: string;
  grantId: string;
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  expiresAt: Date;
  usedAt: Date | null;
}

export interface AccessTokenRecord {
  tokenHash: string;
  grantId: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface WebSessionRecord {
  tokenHash: string;
  userId: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface OAuthData {
  insertClient(client: OAuthClientRecord): Promise<void>;
  findClient(id: string): Promise<OAuthClientRecord | null>;
  /** Stores a client ID metadata document's client, replacing the copy of an earlier fetch. */
  saveClient(client: OAuthClientRecord): Promise<void>;

  insertAuthorizationRequest(request: AuthorizationRequestRecord): Promise<void>;
  /** Expired requests are returned too (the caller decides with its clock); inside a transaction the row is locked. */
  findAuthorizationRequest(handleHash: string): Promise<AuthorizationRequestRecord | null>;
  /** Consumes the request: true when this call removed it, false when it was already gone. */
  deleteAuthorizationRequest(handleHash: string): Promise<boolean>;

  insertGrant(grant: GrantRecord): Promise<void>;
  /** Inside a transaction the grant row is locked until commit, so refreshes of one grant serialize. */
  findGrant(id: string): Promise<GrantRecord | null>;
  listGrants(filter: { userId?: string }): Promise<GrantRecord[]>;
  updateRefreshChain(grantId: string, chain: RefreshChain): Promise<void>;
  /** True when this call revoked it, false when it was unknown or already revoked. */
  revokeGrant(grantId: string, at: Date, reason: string): Promise<boolean>;

  insertCode(code: AuthorizationCodeRecord): Promise<void>;
  findCode(codeHash: string): Promise<AuthorizationCodeRecord | null>;
  /** Marks the code used: true for the first use, false when it had been used already. */
  markCodeUsed(codeHash: string, at: Date): Promise<boolean>;

  insertAccessToken(token: AccessTokenRecord): Promise<void>;
  /** The token with its grant, in one lookup. */
  findAccessToken(tokenHash: string): Promise<{ token: AccessTokenRecord; grant: GrantRecord } | null>;
  /**
   * The same, with the grant's user's handle when the store can read it in that lookup too (the MCP
   * endpoint's hot path: one query instead of a second one for the user).
   */
  findAccessTokenForUse(tokenHash: string): Promise<{ token: AccessTokenRecord; grant: GrantRecord; handle?: string } | null>;
  insertRefreshToken(token: { tokenHash: string; grantId: string; createdAt: Date }): Promise<void>;
  /** The grant any refresh token ever issued belongs to, so reuse of an old one can revoke it. */
  findRefreshTokenGrant(tokenHash: string): Promise<string | null>;

  insertWebSession(session: WebSessionRecord): Promise<void>;
  findWebSession(tokenHash: string): Promise<WebSessionRecord | null>;
  deleteWebSession(tokenHash: string): Promise<void>;

  /** Drops expired requests, codes, access tokens and web sessions. */
  purgeExpired(now: Date): Promise<void>;
}

export const OAuthStore = Symbol.for('OAuthStore');
export interface OAuthStore extends OAuthData {
  /** Runs `work` in one transaction: all of its writes land, or none do. */
  transaction<T>(work: (tx: OAuthData) => Promise<T>): Promise<T>;
}
