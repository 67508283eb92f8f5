/** The values that bind a provider's answer to the browser that started the sign-in (kept in a sealed cookie). */
export interface SignInChecks {
  state: string;
  nonce: string;
  /** PKCE (S256) verifier; the provider saw only its challenge. */
  codeVerifier: string;
}

/** Who the provider says signed in, from a verified ID token. */
export interface UpstreamIdentity {
  issuer: string;
  subject: string;
  email: string | null;
  /** True only when the provider asserts `email_verified: true`. */
  emailVerified: boolean;
  preferredUsername: string | null;
}

export const IdentityProvider = Symbol.for('IdentityProvider');
/**
 * An upstream OpenID Connect provider (authorization code flow with PKCE). Bound only when OIDC_ISSUER
 * is configured. Failures are DomainErrors: 'unauthenticated' when the answer does not verify or the
 * provider refused, 'unavailable' when the provider cannot be reached.
 */
export interface IdentityProvider {
  /** The label of the sign-in button (`Sign in with <displayName>`). */
  readonly displayName: string;
  /** Fresh checks and the provider's authorization URL that carries them (state, nonce, S256 challenge). */
  beginSignIn(): Promise<{ authorizationUrl: string; checks: SignInChecks }>;
  /**
   * Verifies the provider's redirect back (`callbackQuery`: the callback's query string) against the
   * checks, exchanges the code, validates the ID token, and returns its identity.
   */
  completeSignIn(callbackQuery: string, checks: SignInChecks): Promise<UpstreamIdentity>;
}
