import type { GrantLock } from '../../domain/scope.js';

/** Who is calling, as established by a verified access token. */
export interface Principal {
  userId: string;
  grantId: string;
  lock: GrantLock;
  scope: string;
  /**
   * The user's handle, when the verifier read it with the token (one query). Absent: whoever needs it
   * loads the user.
   */
  handle?: string;
}

export const TokenVerifier = Symbol.for('TokenVerifier');
/**
 * Resolves an access token to its principal, or null when the token is unknown, expired or revoked.
 * Infrastructure failures throw: authorization fails closed.
 */
export interface TokenVerifier {
  verify(accessToken: string): Promise<Principal | null>;
}
