import { inject, injectable, optional } from 'inversify';
import {
  checkClientIdUrl,
  clientMetadataLifetimeSeconds,
  clientMetadataRefused,
  isServiceUrl,
  parseClientMetadataDocument,
} from '../../domain/client-metadata.js';
import { addSeconds, isOAuthError } from '../../domain/oauth.js';
import { RATE_LIMITS, RATE_WINDOW_SECONDS } from '../../domain/rate-limits.js';
import { ClientMetadataSource } from '../ports/client-metadata-source.js';
import { Clock } from '../ports/clock.js';
import { OAuthStore, type OAuthClientRecord } from '../ports/oauth-store.js';
import { RateLimiter } from '../ports/rate-limiter.js';
import { Settings } from '../ports/settings.js';

export type MetadataClientOutcome = { client: OAuthClientRecord } | { refusal: string };

/**
 * The client behind a client ID metadata document URL, for `/authorize`. A stored copy still within
 * its Cache-Control lifetime is used as it is; otherwise the document is fetched, judged, and stored
 * with its new lifetime. A failure is never stored: the next request fetches again. The copy lives in
 * the database, so every instance of the service shares it.
 */
@injectable()
export class MetadataDocumentClients {
  constructor(
    @inject(OAuthStore) private readonly store: OAuthStore,
    @inject(RateLimiter) private readonly limiter: RateLimiter,
    @inject(Clock) private readonly clock: Clock,
    @inject(Settings) private readonly settings: Settings,
    @inject(ClientMetadataSource) @optional() private readonly source: ClientMetadataSource | undefined,
  ) {}

  async resolve(clientId: string, clientIp: string | undefined): Promise<MetadataClientOutcome> {
    try {
      return { client: await this.client(clientId, clientIp) };
    } catch (error) {
      if (isOAuthError(error)) return { refusal: error.description };
      throw error;
    }
  }

  private async client(clientId: string, clientIp: string | undefined): Promise<OAuthClientRecord> {
    const url = checkClientIdUrl(clientId, { allowLoopbackHttp: this.settings.allowLoopbackClientMetadata });
    if (isServiceUrl(url, this.settings)) throw clientMetadataRefused(clientId, 'it points at this service itself');
    const now = this.clock.now();
    const stored = await this.store.findClient(clientId);
    if (stored?.metadataExpiresAt && stored.metadataExpiresAt > now) return stored;
    if (!this.source) throw clientMetadataRefused(clientId, 'this service does not fetch client metadata documents');

    // A fetch costs what a registration does, and shares its budget per client address. Limits fail
    // open (as registration's do): an unreachable Redis must not stop sign-ins.
    const { points } = RATE_LIMITS.register;
    const allowed = await this.limiter.consume('register', clientIp ?? 'unknown', points, RATE_WINDOW_SECONDS).catch(() => true); // fail open; limiter adapters log their own failures
    if (!allowed) throw clientMetadataRefused(clientId, 'too many clients were looked up from your address; retry in a minute');

    const fetched = await this.source.fetch(url);
    const metadata = parseClientMetadataDocument(clientId, fetched.document);
    const lifetime = clientMetadataLifetimeSeconds(fetched.cacheControl, fetched.age);
    const client: OAuthClientRecord = {
      id: clientId,
      name: metadata.name,
      redirectUris: metadata.redirectUris,
      grantTypes: metadata.grantTypes,
      scope: metadata.scope,
      createdAt: stored?.createdAt ?? now,
      metadataExpiresAt: addSeconds(now, lifetime),
    };
    await this.store.saveClient(client);
    return client;
  }
}
