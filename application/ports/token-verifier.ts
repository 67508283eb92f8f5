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
  /**
   * The principal of a token this process verified before and may still answer for from memory, at
   * once; undefined when only `verify` can tell (never a refusal). Lets the MCP endpoint's fixed answers
   * go without waiting on anything but the request body.
   */
  remembered?(accessToken: string): Principal | undefined;
}
