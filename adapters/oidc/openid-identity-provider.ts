import * as oidc from 'openid-client';
import { DomainError } from '../../domain/errors.js';
import { issuerMayUseHttp, UPSTREAM_SCOPE } from '../../domain/upstream-sign-in.js';
import type { IdentityProvider, SignInChecks, UpstreamIdentity } from '../../application/ports/identity-provider.js';

export interface OpenIdProviderOptions {
  issuer: string;
  clientId: string;
  /** Null for a public client: PKCE alone protects the code then. */
  clientSecret: string | null;
  displayName: string;
  /** `{APP_URL}/sign-in/oidc/callback`, registered at the provider. */
  redirectUri: string;
  /** Seconds each request to the provider may take. */
  timeoutSeconds?: number;
  /** Told why a discovery or code exchange failed (the user only sees a plain refusal). */
  logger?: { warn(data: object, message: string): void };
}

/**
 * The upstream provider through openid-client: discovery, the authorization URL with state, nonce and
 * an S256 challenge, and the code exchange that validates the answer and the ID token (signature,
 * issuer, audience, expiry, nonce). Discovery happens on the first sign-in and is kept; a failed one is
 * retried on the next.
 */
export class OpenIdIdentityProvider implements IdentityProvider {
  private configuration: Promise<oidc.Configuration> | null = null;

  constructor(private readonly options: OpenIdProviderOptions) {}

  get displayName(): string {
    return this.options.displayName;
  }

  async beginSignIn(): Promise<{ authorizationUrl: string; checks: SignInChecks }> {
    const configuration = await this.discovered();
    const checks: SignInChecks = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() };
    const url = oidc.buildAuthorizationUrl(configuration, {
      redirect_uri: this.options.redirectUri,
      scope: UPSTREAM_SCOPE,
      state: checks.state,
      nonce: checks.nonce,
      code_challenge: await oidc.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
    });
    return { authorizationUrl: url.href, checks };
  }

  async completeSignIn(callbackQuery: string, checks: SignInChecks): Promise<UpstreamIdentity> {
    const configuration = await this.discovered();
    // The redirect URI the provider saw, with the answer's parameters: the code, the state, maybe iss.
    const callbackUrl = new URL(this.options.redirectUri);
    callbackUrl.search = callbackQuery;
    let claims: oidc.IDToken | undefined;
    try {
      const tokens = await oidc.authorizationCodeGrant(configuration, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
      claims = tokens.claims();
    } catch (error) {
      this.logFailure(error, 'upstream sign-in: the code exchange failed');
      throw this.refusal(error);
    }
    if (!claims) throw this.unverified();
    return {
      issuer: claims.iss,
      subject: claims.sub,
      email: typeof claims.email === 'string' && claims.email !== '' ? claims.email : null,
      // Only the boolean: a provider that leaves it out, or says anything else, has not verified the address.
      emailVerified: claims.email_verified === true,
      preferredUsername: typeof claims.preferred_username === 'string' && claims.preferred_username !== '' ? claims.preferred_username : null,
    };
  }

  private discovered(): Promise<oidc.Configuration> {
    this.configuration ??= this.discover().catch((error: unknown) => {
      this.configuration = null;
      throw error;
    });
    return this.configuration;
  }

  private async discover(): Promise<oidc.Configuration> {
    const { issuer, clientId, clientSecret } = this.options;
    try {
      return await oidc.discovery(
        new URL(issuer),
        clientId,
        undefined,
        // client_secret_basic is the OpenID Connect default for a registered secret.
        clientSecret ? oidc.ClientSecretBasic(clientSecret) : oidc.None(),
        {
          timeout: this.options.timeoutSeconds ?? 10,
          execute: issuerMayUseHttp(issuer) ? [oidc.allowInsecureRequests] : [],
        },
      );
    } catch (error) {
      this.logFailure(error, 'upstream sign-in: discovery failed; retried on the next sign-in');
      throw this.unreachable();
    }
  }

  /**
   * Name, message and code only: the library's error objects may carry the provider's response as their
   * `cause`, which is not the operator's to read in a log.
   */
  private logFailure(error: unknown, message: string): void {
    const { name, message: reason, code } = (error instanceof Error ? error : new Error(String(error))) as Error & { code?: string };
    this.options.logger?.warn({ issuer: this.options.issuer, error: { name, message: reason, code } }, message);
  }

  /** The user-facing refusal for a failed code exchange; the library's own message stays out of the page. */
  private refusal(error: unknown): DomainError {
    if (error instanceof oidc.AuthorizationResponseError) {
      return new DomainError('unauthenticated', `${this.displayName} did not sign you in (${error.error}).`);
    }
    if (isNetworkFailure(error)) return this.unreachable();
    return this.unverified();
  }

  private unverified(): DomainError {
    return new DomainError(
      'unauthenticated',
      `The answer from ${this.displayName} could not be verified for this sign-in attempt, so you were not signed in. Start again.`,
    );
  }

  private unreachable(): DomainError {
    return new DomainError('unavailable', `${this.displayName} cannot be reached right now. Try again in a moment, or sign in with your password.`);
  }
}

function isNetworkFailure(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  return error.name === 'TimeoutError' || error.name === 'AbortError' || (error instanceof TypeError && error.message === 'fetch failed');
}
