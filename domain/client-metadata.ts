import { isLoopbackRedirect, parseClientRegistration, type ClientRegistration } from './oauth-clients.js';
import { OAuthError } from './oauth.js';

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document, adopted by the MCP
 * authorization revision of 2025-11-25): a client whose `client_id` is an https URL publishes its
 * metadata there, and the authorization server reads it instead of asking the client to register.
 * Pure rules: the shape of such a URL, what the document must say, and how long it may be reused.
 */

/** The most a document may weigh: a page of JSON, far more than any client needs. */
export const CLIENT_METADATA_MAX_BYTES = 5 * 1024;
/** How long the fetch may take, from connecting to the last byte. */
export const CLIENT_METADATA_TIMEOUT_MS = 5_000;
/** A document is reused for at most this long, whatever its Cache-Control says. */
export const CLIENT_METADATA_MAX_AGE_SECONDS = 24 * 60 * 60;

/** The refusal of one client_id URL; the text ends up on the error page the browser shows. */
export const clientMetadataRefused = (clientId: string, why: string) =>
  new OAuthError('invalid_client', `The client ID ${clientId} cannot be used: ${why}.`);

/**
 * A client id that is a URL: it names a metadata document rather than a registration. Registered
 * clients get UUIDs, so the two never collide.
 */
export const isClientIdUrl = (clientId: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(clientId);

const DOT_SEGMENT = /^(?:\.|%2e){1,2}$/i;

/**
 * The URL of a client id as the draft requires it: https, with a path, and no fragment, credentials
 * or dot segments. `allowLoopbackHttp` (the local-testing setting) also admits http on a loopback
 * address, as the upstream sign-in issuer may be. Throws the refusal.
 */
export function checkClientIdUrl(clientId: string, options: { allowLoopbackHttp: boolean }): URL {
  const refuse = (why: string) => clientMetadataRefused(clientId, why);
  if (clientId.length > 2000) throw refuse('it is longer than 2000 characters');
  if (clientId.includes('#')) throw refuse('it has a fragment');
  if (!URL.canParse(clientId)) throw refuse('it is not an absolute URL');
  const url = new URL(clientId);
  const loopbackHttp = options.allowLoopbackHttp && isLoopbackRedirect(clientId);
  if (url.protocol !== 'https:' && !loopbackHttp) {
    throw refuse(options.allowLoopbackHttp ? 'it must use https (http only on a loopback address)' : 'it must use https');
  }
  if (url.username || url.password) throw refuse('it contains credentials');
  // The parser resolves dot segments away, so they are looked for in the text as sent.
  const rawPath = clientId.slice(clientId.indexOf('//') + 2).replace(/^[^/?]*/, '').replace(/\?.*$/, '');
  if (rawPath.split('/').some((segment) => DOT_SEGMENT.test(segment))) throw refuse('its path has "." or ".." segments');
  if (url.pathname === '/' || url.pathname === '') throw refuse('it has no path');
  return url;
}

/** The hosts the service itself answers on: its API, its web app and every dashboard subdomain. */
export interface ServiceHosts {
  baseUrl: string;
  appUrl: string;
  /** `dash.example.com` or `dash.localhost:8787`: dashboards live on its subdomains. */
  dashboardDomain: string;
}

/**
 * Whether a client id URL points at the service itself. Dashboards are pages users publish, so a
 * document there would let anyone speak for a client "hosted" on the service's own name.
 */
export function isServiceUrl(url: URL, hosts: ServiceHosts): boolean {
  const port = (u: URL) => u.port || (u.protocol === 'https:' ? '443' : '80');
  const key = `${url.hostname.toLowerCase()}:${port(url)}`;
  const own = [hosts.baseUrl, hosts.appUrl].map((base) => new URL(base)).map((u) => `${u.hostname.toLowerCase()}:${port(u)}`);
  if (own.includes(key)) return true;
  const dashboards = new URL(`http://${hosts.dashboardDomain}`);
  const domain = dashboards.hostname.toLowerCase();
  const host = url.hostname.toLowerCase();
  const samePort = !dashboards.port || dashboards.port === port(url);
  return samePort && (host === domain || host.endsWith(`.${domain}`));
}

/** A document as accepted: the client's registration, with a name it must have. */
export interface ClientMetadata extends ClientRegistration {
  name: string;
}

/**
 * What a fetched document must say: its own URL as `client_id`, a `client_name`, `redirect_uris`,
 * and `token_endpoint_auth_method` "none" (public clients with PKCE, as dynamic registration allows);
 * the rest as a registration request.
 */
export function parseClientMetadataDocument(clientId: string, document: unknown): ClientMetadata {
  const refuse = (why: string) => clientMetadataRefused(clientId, why);
  if (typeof document !== 'object' || document === null || Array.isArray(document)) throw refuse('its metadata document is not a JSON object');
  const metadata = document as Record<string, unknown>;
  if (metadata.client_id !== clientId) throw refuse('the client_id in its metadata document differs from the URL it was fetched from');
  if (metadata.token_endpoint_auth_method !== 'none') {
    throw refuse('its metadata document must set token_endpoint_auth_method to "none" (public clients with PKCE only)');
  }
  if ('client_secret' in metadata || 'client_secret_expires_at' in metadata) throw refuse('its metadata document contains a client secret');
  let registration: ClientRegistration;
  try {
    registration = parseClientRegistration(metadata);
  } catch (error) {
    if (error instanceof OAuthError) throw refuse(`its metadata document is invalid (${error.description})`);
    throw error;
  }
  if (registration.name === null) throw refuse('its metadata document has no client_name');
  return { ...registration, name: registration.name };
}

/**
 * How long a fetched document may be reused, from its Cache-Control (and Age) headers: `s-maxage`
 * before `max-age`, since the service is a shared cache; nothing for `no-store`, `no-cache` or no
 * header at all; at most 24 hours.
 */
export function clientMetadataLifetimeSeconds(cacheControl: string | null, age: string | null = null): number {
  if (!cacheControl) return 0;
  const directives = new Map<string, string | null>();
  for (const part of cacheControl.split(',')) {
    const [name, value] = part.trim().split('=', 2) as [string, string | undefined];
    if (name) directives.set(name.toLowerCase(), value === undefined ? null : value.replace(/^"|"$/g, ''));
  }
  if (directives.has('no-store') || directives.has('no-cache')) return 0;
  const raw = directives.get('s-maxage') ?? directives.get('max-age');
  if (raw === undefined || raw === null || !/^\d+$/.test(raw)) return 0;
  const elapsed = age && /^\d+$/.test(age.trim()) ? Number(age.trim()) : 0;
  return Math.max(0, Math.min(Number(raw) - elapsed, CLIENT_METADATA_MAX_AGE_SECONDS));
}

/** The host to show for a client: its client_id URL's, or null for a registered client. */
export function clientIdHost(clientId: string): string | null {
  if (!isClientIdUrl(clientId)) return null;
  try {
    return new URL(clientId).host;
  } catch {
    return null;
  }
}
