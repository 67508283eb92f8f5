import { inject, injectable } from 'inversify';
import {
  addSeconds,
  AUTHORIZATION_REQUEST_TTL_SECONDS,
  checkCodeChallenge,
  checkResource,
  grantedScope,
  isOAuthError,
  OAuthError,
} from '../../domain/oauth.js';
import { isClientIdUrl } from '../../domain/client-metadata.js';
import { matchRedirectUri } from '../../domain/oauth-clients.js';
import { Clock } from '../ports/clock.js';
import { OAuthStore, type OAuthClientRecord } from '../ports/oauth-store.js';
import { SecretTokens } from '../ports/secret-tokens.js';
import { Settings } from '../ports/settings.js';
import { oauthUrls, withQuery } from './endpoints.js';
import { MetadataDocumentClients } from './metadata-document-clients.js';

export type AuthorizeOutcome =
  /** The request is stored: send the browser to the consent screen. */
  | { kind: 'consent'; location: string }
  /** A refusal the client may hear about: back to its (verified) redirect URI with an error. */
  | { kind: 'redirect'; location: string }
  /**
   * The client or redirect URI cannot be trusted, so nothing is sent there (RFC 6749 §4.1.2.1): the
   * browser gets an error page instead.
   */
  | { kind: 'refuse'; message: string };

type Params = Record<string, string | string[] | undefined>;

/** `GET /authorize`: checks the request, stores it for 30 minutes, and hands over to the consent screen. */
@injectable()
export class StartAuthorization {
  constructor(
    @inject(OAuthStore) private readonly store: OAuthStore,
    @inject(SecretTokens) private readonly secrets: SecretTokens,
    @inject(Clock) private readonly clock: Clock,
    @inject(Settings) private readonly settings: Settings,
    @inject(MetadataDocumentClients) private readonly documents: MetadataDocumentClients,
  ) {}

  /** `clientIp` counts metadata document fetches against the registration budget of that address. */
  async execute(params: Params, clientIp?: string): Promise<AuthorizeOutcome> {
    const single = (name: string): string | undefined => {
      const value = params[name];
      if (Array.isArray(value)) throw new OAuthError('invalid_request', `${name} must not be repeated`);
      return value === '' ? undefined : value;
    };
    const urls = oauthUrls(this.settings);

    let clientId: string | undefined;
    let redirectUri: string | undefined;
    try {
      clientId = single('client_id');
      redirectUri = single('redirect_uri');
    } catch (error) {
      return { kind: 'refuse', message: (error as Error).message };
    }
    if (!clientId) return { kind: 'refuse', message: 'The request names no client (client_id is missing).' };
    let client: OAuthClientRecord | null;
    if (isClientIdUrl(clientId)) {
      // A client ID metadata document: fetched (or its stored copy reused) and judged; any refusal is
      // told to the browser, never to the client's redirect URI, as for an unknown client.
      const outcome = await this.documents.resolve(clientId, clientIp);
      if ('refusal' in outcome) return { kind: 'refuse', message: outcome.refusal };
      client = outcome.client;
    } else {
      client = await this.store.findClient(clientId);
    }
    if (!client) return { kind: 'refuse', message: 'The client is not registered with this service. Connect it again from your client.' };
    if (!redirectUri) return { kind: 'refuse', message: 'The request has no redirect_uri.' };
    // Exact match of the URL serialisations (what a browser would visit): no prefix, no port wildcard.
    const registeredUri = matchRedirectUri(client.redirectUris, redirectUri);
    if (registeredUri === null) return { kind: 'refuse', message: 'The redirect_uri is not registered for this client.' };
    redirectUri = registeredUri;

    let state: string | undefined;
    try {
      state = single('state');
      if (single('response_type') !== 'code') throw new OAuthError('unsupported_response_type', 'response_type must be "code"');
      const codeChallenge = checkCodeChallenge(single('code_challenge'), single('code_challenge_method'));
      const requestedScope = single('scope') ?? null;
      const scope = grantedScope(requestedScope);
      const resource = checkResource(single('resource'), urls.resource);

      const now = this.clock.now();
      const handle = this.secrets.generate();
      await this.store.purgeExpired(now);
      await this.store.insertAuthorizationRequest({
        handleHash: this.secrets.digest(handle),
        clientId: client.id,
        redirectUri,
        state: state ?? null,
        codeChallenge,
        requestedScope,
        scope,
        resource,
        createdAt: now,
        expiresAt: addSeconds(now, AUTHORIZATION_REQUEST_TTL_SECONDS),
      });
      return { kind: 'consent', location: withQuery(urls.consent, { request: handle }) };
    } catch (error) {
      if (!isOAuthError(error)) throw error;
      const location = withQuery(redirectUri, {
        error: error.error,
        error_description: error.description,
        state,
        iss: urls.issuer,
      });
      return { kind: 'redirect', location };
    }
  }
}
