import { OAuthError } from './oauth.js';

/**
 * Dynamic client registration rules (RFC 7591): public clients only, redirect URIs that are https or
 * loopback http, matched exactly later on.
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

/** One redirect URI as registered: absolute, https or loopback http, no fragment, no credentials. */
export function validateRedirectUri(value: unknown): string {
  const refuse = (why: string) => new OAuthError('invalid_redirect_uri', `redirect URI ${JSON.stringify(value)} ${why}`);
  if (typeof value !== 'string' || value === '') throw refuse('must be a non-empty string');
  if (value.length > MAX_URI_LENGTH) throw refuse(`exceeds ${MAX_URI_LENGTH} characters`);
  if (value.includes('#')) throw refuse('must not contain a fragment');
  if (!URL.canParse(value)) throw refuse('is not an absolute URL');
  const url = new URL(value);
  if (url.username || url.password) throw refuse('must not contain credentials');
  if (url.protocol === 'https:') return value;
  if (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname)) return value;
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
  redirectUris.forEach(validateRedirectUri);

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
  return { name, redirectUris: [...new Set(redirectUris)], grantTypes: [...new Set(grantTypes)], scope };
}
