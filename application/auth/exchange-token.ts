import { inject, injectable } from 'inversify';
import { checkCodeVerifier, checkResource, decideRefresh, OAuthError } from '../../domain/oauth.js';
import { normalizeRedirectUri } from '../../domain/oauth-clients.js';
import { Clock } from '../ports/clock.js';
import { OAuthStore, type OAuthData } from '../ports/oauth-store.js';
import { SecretTokens } from '../ports/secret-tokens.js';
import { Settings } from '../ports/settings.js';
import { oauthUrls } from './endpoints.js';
import { TokenIssuer, type TokenResponse } from './token-issuer.js';

type Params = Record<string, string | string[] | undefined>;

/**
 * A refusal decided inside a transaction that must still commit (a revocation), thrown after it.
 * Throwing inside would roll the revocation back.
 */
type Outcome = { tokens: TokenResponse } | { refusal: OAuthError };
const refuse = (description: string): Outcome => ({ refusal: new OAuthError('invalid_grant', description) });

/** `POST /token`: the authorization_code and refresh_token grants for public clients. */
@injectable()
export class ExchangeToken {
  constructor(
    @inject(OAuthStore) private readonly store: OAuthStore,
    @inject(SecretTokens) private readonly secrets: SecretTokens,
    @inject(TokenIssuer) private readonly issuer: TokenIssuer,
    @inject(Clock) private readonly clock: Clock,
    @inject(Settings) private readonly settings: Settings,
  ) {}

  /** `authenticatedClientId` is a client id from HTTP Basic, when the client sent one that way. */
  async execute(params: Params, authenticatedClientId?: string): Promise<TokenResponse> {
    const single = (name: string): string | undefined => {
      const value = params[name];
      if (Array.isArray(value)) throw new OAuthError('invalid_request', `${name} must not be repeated`);
      return value === '' ? undefined : value;
    };
    const bodyClientId = single('client_id');
    if (authenticatedClientId && bodyClientId && authenticatedClientId !== bodyClientId) {
      throw new OAuthError('invalid_request', 'client_id differs from the authenticated client');
    }
    const clientId = authenticatedClientId ?? bodyClientId;
    if (!clientId) throw new OAuthError('invalid_request', 'client_id is required');
    const client = await this.store.findClient(clientId);
    if (!client) throw new OAuthError('invalid_client', 'the client is not registered');
    const resource = checkResource(single('resource'), oauthUrls(this.settings).resource);

    const grantType = single('grant_type');
    if (grantType === undefined) throw new OAuthError('invalid_request', 'grant_type is required');
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
      throw new OAuthError('unsupported_grant_type', `grant_type "${grantType}" is not supported`);
    }
    if (!client.grantTypes.includes(grantType)) {
      throw new OAuthError('unauthorized_client', `the client did not register the ${grantType} grant`);
    }
    const outcome =
      grantType === 'authorization_code'
        ? await this.redeemCode(client.id, resource, single('code'), single('code_verifier'), single('redirect_uri'))
        : await this.refresh(client.id, resource, single('refresh_token'), this.fingerprint(client.id, params));
    if ('refusal' in outcome) throw outcome.refusal;
    return outcome.tokens;
  }

  private async redeemCode(
    clientId: string,
    resource: string,
    code: string | undefined,
    verifier: string | undefined,
    redirectUri: string | undefined,
  ): Promise<Outcome> {
    if (!code) throw new OAuthError('invalid_request', 'code is required');
    const codeVerifier = checkCodeVerifier(verifier);
    const codeHash = this.secrets.digest(code);
    return this.store.transaction(async (tx) => {
      const now = this.clock.now();
      const record = await tx.findCode(codeHash);
      if (!record || !this.secrets.same(record.codeHash, codeHash)) return refuse('the authorization code is not valid');
      // A second use means the code leaked or the exchange is being replayed: the grant goes.
      if (record.usedAt) return this.revoked(tx, record.grantId, now, 'authorization code replayed');
      if (record.clientId !== clientId) return refuse('the authorization code was issued to another client');
      if (record.expiresAt <= now) return refuse('the authorization code has expired');
      if (redirectUri === undefined || normalizeRedirectUri(redirectUri) !== record.redirectUri) return refuse('redirect_uri does not match the one of the authorization request');
      if (!this.secrets.same(this.secrets.s256(codeVerifier), record.codeChallenge)) {
        return refuse('code_verifier does not match the code challenge');
      }
      if (resource !== record.resource) throw new OAuthError('invalid_target', 'resource does not match the authorization request');
      if (!(await tx.markCodeUsed(codeHash, now))) return this.revoked(tx, record.grantId, now, 'authorization code replayed');
      const grant = await tx.findGrant(record.grantId);
      if (!grant || grant.revokedAt) return refuse('the authorization has been revoked');
      return { tokens: await this.issuer.issue(tx, grant, now) };
    });
  }

  /**
   * What makes two refresh requests "the same request" for the retry window: the client and the
   * `scope` and `resource` parameters exactly as sent (the token itself is compared separately).
   */
  private fingerprint(clientId: string, params: Params): string {
    const sent = (name: string) => (typeof params[name] === 'string' ? params[name] : null);
    return this.secrets.digest(JSON.stringify([clientId, sent('scope'), sent('resource')]));
  }

  private async refresh(clientId: string, resource: string, refreshToken: string | undefined, fingerprint: string): Promise<Outcome> {
    if (!refreshToken) throw new OAuthError('invalid_request', 'refresh_token is required');
    const tokenHash = this.secrets.digest(refreshToken);
    return this.store.transaction(async (tx) => {
      const now = this.clock.now();
      const grantId = await tx.findRefreshTokenGrant(tokenHash);
      // Locks the grant: concurrent refreshes of one grant take their turns.
      const grant = grantId ? await tx.findGrant(grantId) : null;
      if (!grant) return refuse('the refresh token is not valid');
      if (grant.clientId !== clientId) return refuse('the refresh token was issued to another client');
      if (grant.revokedAt) return refuse('the authorization has been revoked');
      if (grant.sessionExpiresAt <= now) return refuse('the session of this authorization has ended; authorize again');
      if (resource !== grant.resource) throw new OAuthError('invalid_target', 'resource does not match the authorization');
      const request = { fingerprint, now, graceSeconds: this.settings.refreshRetryGraceSeconds };
      const decision = decideRefresh(grant.refresh, tokenHash, request, (a, b) => this.secrets.same(a, b));
      if (decision.kind === 'reuse') return this.revoked(tx, grant.id, now, 'refresh token reused');
      return { tokens: await this.issuer.issue(tx, grant, now, decision.next) };
    });
  }

  private async revoked(tx: OAuthData, grantId: string, now: Date, reason: string): Promise<Outcome> {
    await tx.revokeGrant(grantId, now, reason);
    return refuse(`${reason}: the authorization is revoked`);
  }
}
