import type { Settings } from '../ports/settings.js';

/** Where the authorization server's documents and endpoints live: all on the API host (`BASE_URL`). */
export interface OAuthUrls {
  /** Equal to `{base_url}` exactly. */
  issuer: string;
  authorization: string;
  token: string;
  registration: string;
  /** The protected resource: the MCP endpoint. */
  resource: string;
  resourceMetadata: string;
  /** `{auth_url}`: the consent screen on the web app. */
  consent: string;
}

export function oauthUrls(settings: Pick<Settings, 'baseUrl' | 'appUrl'>): OAuthUrls {
  const base = settings.baseUrl;
  return {
    issuer: base,
    authorization: `${base}/authorize`,
    token: `${base}/token`,
    registration: `${base}/register`,
    resource: `${base}/mcp`,
    resourceMetadata: `${base}/.well-known/oauth-protected-resource`,
    consent: `${settings.appUrl}/consent`,
  };
}

/** `uri` with `params` added to its query (keeping the query it has); null values are left out. */
export function withQuery(uri: string, params: Record<string, string | null | undefined>): string {
  const url = new URL(uri);
  for (const [key, value] of Object.entries(params)) if (value !== null && value !== undefined) url.searchParams.append(key, value);
  return url.toString();
}
