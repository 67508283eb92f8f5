/**
 * OAuth 2.1 rules of the authorization server: grants, tokens and their lifetimes
 * (docs/decisions/0007-oauth-grants-and-lifetimes.md).
 * Pure: no clock, no crypto. Times are passed in; hashing and comparison are done by the caller.
 */

/** Access tokens live at most 50 minutes (a service limit). */
export const ACCESS_TOKEN_MAX_SECONDS = 50 * 60;
/** A stored authorization request waits 30 minutes for the user's decision (a service limit). */
export const AUTHORIZATION_REQUEST_TTL_SECONDS = 30 * 60;
/** Codes travel one browser redirect and are exchanged at once; a minute is plenty. */
export const AUTHORIZATION_CODE_TTL_SECONDS = 60;
/**
 * The session a consent mints for its grant. Refreshing never extends it, so a grant is re-confirmed
 * in the browser at least this often.
 */
export const GRANT_SESSION_SECONDS = 30 * 24 * 60 * 60;
/** The web app's own sign-in session. */
export const WEB_SESSION_SECONDS = 14 * 24 * 60 * 60;

/** Sign-in attempts allowed per email and client address in one window, against password guessing. */
export const SIGN_IN_ATTEMPTS = { points: 10, windowSeconds: 15 * 60 } as const;
/** Sign-ups allowed per client address in one window. */
export const SIGN_UPS = { points: 10, windowSeconds: 60 * 60 } as const;

export const DECLINED_DESCRIPTION = 'The user declined the authorization request.';

export type OAuthErrorCode =
  | 'invalid_request'
  | 'invalid_client'
  | 'invalid_grant'
  | 'unauthorized_client'
  | 'unsupported_grant_type'
  | 'unsupported_response_type'
  | 'invalid_scope'
  | 'invalid_target'
  | 'invalid_redirect_uri'
  | 'invalid_client_metadata'
  | 'access_denied'
  | 'server_error';

/** A refusal in OAuth's own vocabulary (RFC 6749 §5.2, RFC 7591 §3.2.2, RFC 8707 §2). */
export class OAuthError extends Error {
  constructor(
    readonly error: OAuthErrorCode,
    readonly description: string,
    readonly status = error === 'invalid_client' ? 401 : 400,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

export const isOAuthError = (value: unknown): value is OAuthError => value instanceof OAuthError;

// --- scope ---

/** The one scope: everything the MCP endpoint offers, within the grant's lock. */
export const MCP_SCOPE = 'mcp';
export const SCOPES: Readonly<Record<string, string>> = {
  [MCP_SCOPE]: 'Publish, update, list, version and refresh dashboards on your behalf',
};

/**
 * The scope a request is granted. Unknown values are dropped rather than refused, as RFC 6749 §3.3
 * allows, so a client asking for a scope of its own still connects; the token response states the
 * scope actually granted.
 */
export function grantedScope(requested: unknown): string {
  if (requested !== undefined && requested !== null && typeof requested !== 'string') {
    throw new OAuthError('invalid_scope', 'scope must be a space-separated string');
  }
  return MCP_SCOPE;
}

// --- PKCE (RFC 7636), S256 only ---

const BASE64URL_SHA256 = /^[A-Za-z0-9_-]{43}$/;
const VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;

/** The challenge of an authorization request; only S256 is accepted (OAuth 2.1). */
export function checkCodeChallenge(challenge: unknown, method: unknown): string {
  if (challenge === undefined || challenge === null || challenge === '') {
    throw new OAuthError('invalid_request', 'code_challenge is required (PKCE with S256)');
  }
  if (method !== 'S256') {
    throw new OAuthError('invalid_request', 'code_challenge_method must be S256; plain and other methods are not supported');
  }
  if (typeof challenge !== 'string' || !BASE64URL_SHA256.test(challenge)) {
    throw new OAuthError('invalid_request', 'code_challenge must be the base64url SHA-256 of the code verifier (43 characters)');
  }
  return challenge;
}

export function checkCodeVerifier(verifier: unknown): string {
  if (verifier === undefined || verifier === null || verifier === '') {
    throw new OAuthError('invalid_request', 'code_verifier is required');
  }
  if (typeof verifier !== 'string' || !VERIFIER.test(verifier)) {
    throw new OAuthError('invalid_grant', 'code_verifier does not match the code challenge');
  }
  return verifier;
}

// --- resource indicators (RFC 8707) ---

/** The one protected resource: the MCP endpoint. An absent `resource` means that one too. */
export function checkResource(value: unknown, mcpResource: string): string {
  if (value === undefined || value === null || value === '') return mcpResource;
  if (typeof value !== 'string' || value.replace(/\/+$/, '') !== mcpResource.replace(/\/+$/, '')) {
    throw new OAuthError('invalid_target', `resource must be ${mcpResource}`);
  }
  return mcpResource;
}

// --- token lifetimes ---

/**
 * When an access token issued `now` expires: at most 50 minutes on, and always a second before the
 * grant's session ends. Null when the session has (nearly) ended and no token may be issued.
 */
export function accessTokenExpiry(now: Date, sessionExpiresAt: Date): Date | null {
  const latest = sessionExpiresAt.getTime() - 1000;
  const expiry = Math.min(now.getTime() + ACCESS_TOKEN_MAX_SECONDS * 1000, latest);
  return expiry > now.getTime() ? new Date(expiry) : null;
}

/** Whole seconds until `expiresAt`, for `expires_in`; rounded down so a client never overestimates. */
export const secondsUntil = (now: Date, expiresAt: Date) => Math.max(0, Math.floor((expiresAt.getTime() - now.getTime()) / 1000));

export const addSeconds = (date: Date, seconds: number) => new Date(date.getTime() + seconds * 1000);

// --- refresh-token rotation, per grant ---

/** A grant's refresh chain: the current token, and the one before it with its single retry. */
export interface RefreshChain {
  currentHash: string | null;
  previousHash: string | null;
  previousRetryLeft: boolean;
  /** When the previous token was rotated, and the fingerprint of the request that rotated it. */
  rotatedAt: Date | null;
  rotationRequest: string | null;
}

/** The chain of a grant that has issued no refresh token yet. */
export const EMPTY_REFRESH_CHAIN: RefreshChain = { currentHash: null, previousHash: null, previousRetryLeft: false, rotatedAt: null, rotationRequest: null };

/**
 * One refresh request as the chain judges it: its fingerprint (client, `scope` and `resource` as sent,
 * hashed by the caller), its time, and the retry window of REFRESH_RETRY_GRACE_SECONDS.
 */
export interface RefreshRequest {
  fingerprint: string;
  now: Date;
  graceSeconds: number;
}

export type RefreshDecision =
  | { kind: 'rotate'; next: (newHash: string) => RefreshChain }
  | { kind: 'reuse' };

/**
 * What presenting a refresh token (by its hash) does to its grant's chain. The current token rotates.
 * The previous one works once more only as a retry of the request that rotated it (a client that lost
 * the response): the same fingerprint, within the grace window. Anything else is reuse of a stolen or
 * stale token, and the caller revokes the grant. `same` must compare in constant time.
 */
export function decideRefresh(
  chain: RefreshChain,
  presentedHash: string,
  request: RefreshRequest,
  same: (a: string, b: string) => boolean,
): RefreshDecision {
  if (chain.currentHash !== null && same(chain.currentHash, presentedHash)) {
    const previousHash = chain.currentHash;
    return {
      kind: 'rotate',
      next: (newHash) => ({ currentHash: newHash, previousHash, previousRetryLeft: true, rotatedAt: request.now, rotationRequest: request.fingerprint }),
    };
  }
  if (chain.previousHash !== null && chain.previousRetryLeft && same(chain.previousHash, presentedHash) && isRetry(chain, request, same)) {
    return { kind: 'rotate', next: (newHash) => ({ ...chain, currentHash: newHash, previousRetryLeft: false }) };
  }
  return { kind: 'reuse' };
}

/** Whether a request for the previous token repeats the rotating one, inside the window. */
function isRetry(chain: RefreshChain, request: RefreshRequest, same: (a: string, b: string) => boolean): boolean {
  if (chain.rotatedAt === null || chain.rotationRequest === null) return false;
  const age = request.now.getTime() - chain.rotatedAt.getTime();
  return age >= 0 && age <= request.graceSeconds * 1000 && same(chain.rotationRequest, request.fingerprint);
}
