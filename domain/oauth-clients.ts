import { OAuthError } from './oauth.js';

/**
 * Dynamic client registration rules (RFC 7591): public clients only, redirect URIs that are https or
 * loopback http, kept in WHATWG URL serialisation and matched exactly in that form later on.
 */

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const MAX_REDIRECT_URIS = 10;
const MAX_URI_LENGTH = 2000;
const MAX_NAME_LENGTH = 120;

export const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;

export interface ClientRegistration {
  name: string | null;
  redirectUris: string[];
  grantTypes: string[];
  scope: string | null;
}

export function isLoopbackRedirect(uri: string): boolean {
  const url = new URL(uri);
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/** Spaces and control characters, which URL parsing would silently strip or encode. */
const SPACE_OR_CONTROL = /[\u0000-\u0020\u007f]/;

/**
 * A redirect URI in the one form it is stored and compared in: the WHATWG URL serialisation (scheme and
 * host lower-cased, default port dropped, path resolved), which is also where a browser goes. Null when
 * it is not an absolute URL or carries spaces or control characters.
 */
export function normalizeRedirectUri(value: string): string | null {
  if (SPACE_OR_CONTROL.test(value) || !URL.canParse(value)) return null;
  return new URL(value).href;
}

/** The registered redirect URI a request names (both compared normalised), in normal form; null when none. */
export function matchRedirectUri(registered: readonly string[], presented: string): string | null {
  const wanted = normalizeRedirectUri(presented);
  if (wanted === null) return null;
  return registered.some((uri) => normalizeRedirectUri(uri) === wanted) ? wanted : null;
}

/** One redirect URI as registered: absolute, https or loopback http, no fragment, no credentials; normalised. */
export function validateRedirectUri(value: unknown): string {
  const refuse = (why: string) => new OAuthError('invalid_redirect_uri', `redirect URI ${JSON.stringify(value)} ${why}`);
  if (typeof value !== 'string' || value === '') throw refuse('must be a non-empty string');
  if (value.length > MAX_URI_LENGTH) throw refuse(`exceeds ${MAX_URI_LENGTH} characters`);
  if (value.trim() !== value) throw refuse('must not begin or end with whitespace');
  if (SPACE_OR_CONTROL.test(value)) throw refuse('must not contain spaces or control characters');
  if (value.includes('#')) throw refuse('must not contain a fragment');
  const normal = normalizeRedirectUri(value);
  if (normal === null) throw refuse('is not an absolute URL');
  const url = new URL(normal);
  if (url.username || url.password) throw refuse('must not contain credentials');
  if (url.protocol === 'https:') return normal;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return normal;
  throw refuse('must use https, or http on a loopback address (127.0.0.1, [::1], localhost)');
}

function stringList(value: unknown, field: string): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw new OAuthError('invalid_client_metadata', `${field} must be an array of strings`);
  }
  return value as string[];
}

/** Validates a registration request body; unknown metadata fields are ignored (RFC 7591 §2). */
export function parseClientRegistration(body: unknown): ClientRegistration {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new OAuthError('invalid_client_metadata', 'the registration request must be a JSON object');
  }
  const metadata = body as Record<string, unknown>;
  const redirectUris = stringList(metadata.redirect_uris, 'redirect_uris');
  if (!redirectUris || redirectUris.length === 0) throw new OAuthError('invalid_redirect_uri', 'redirect_uris must list at least one URI');
  if (redirectUris.length > MAX_REDIRECT_URIS) {
    throw new OAuthError('invalid_redirect_uri', `redirect_uris may list at most ${MAX_REDIRECT_URIS} URIs`);
  }
  const normalUris = redirectUris.map(validateRedirectUri);

  const method = metadata.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') {
    throw new OAuthError('invalid_client_metadata', 'token_endpoint_auth_method must be "none": only public clients with PKCE are supported');
  }
  const grantTypes = stringList(metadata.grant_types, 'grant_types') ?? [...GRANT_TYPES];
  const unsupported = grantTypes.find((g) => !(GRANT_TYPES as readonly string[]).includes(g));
  if (unsupported) throw new OAuthError('invalid_client_metadata', `grant type "${unsupported}" is not supported`);
  if (!grantTypes.includes('authorization_code')) {
    throw new OAuthError('invalid_client_metadata', 'grant_types must include authorization_code');
  }
  const responseTypes = stringList(metadata.response_types, 'response_types') ?? ['code'];
  if (responseTypes.some((r) => r !== 'code')) throw new OAuthError('invalid_client_metadata', 'response_types may only contain "code"');

  let name: string | null = null;
  if (metadata.client_name !== undefined && metadata.client_name !== null) {
    if (typeof metadata.client_name !== 'string') throw new OAuthError('invalid_client_metadata', 'client_name must be a string');
    // Control characters could disguise the name on the consent screen.
    const cleaned = metadata.client_name.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069]/g, '').trim();
    if (cleaned.length > MAX_NAME_LENGTH) {
      throw new OAuthError('invalid_client_metadata', `client_name exceeds ${MAX_NAME_LENGTH} characters`);
    }
    name = cleaned === '' ? null : cleaned;
  }
  const scope = typeof metadata.scope === 'string' && metadata.scope.trim() !== '' ? metadata.scope.trim() : null;
  return { name, redirectUris: [...new Set(normalUris)], grantTypes: [...new Set(grantTypes)], scope };
}
