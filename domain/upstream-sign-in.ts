import { isDomainError } from './errors.js';
import { isLoopbackRedirect } from './oauth-clients.js';
import { HANDLE_MAX_LENGTH, validateHandle } from './names.js';

/**
 * Rules of the optional upstream OpenID Connect sign-in (docs/decisions/0010-upstream-oidc-sign-in.md). Pure: the protocol
 * itself is the identity-provider adapter's business.
 */

/** Where the web app starts an upstream sign-in (`?return_to=` as on /sign-in). */
export const UPSTREAM_START_PATH = '/sign-in/oidc';
/** Where the provider sends the browser back; `{APP_URL}` + this is the redirect URI to register there. */
export const UPSTREAM_CALLBACK_PATH = '/sign-in/oidc/callback';

/** What the service asks the provider for: an ID token with the email and a display name. */
export const UPSTREAM_SCOPE = 'openid email profile';

/** A started sign-in (state, nonce, PKCE verifier) is good for this long; the provider round trip takes seconds. */
export const UPSTREAM_ATTEMPT_SECONDS = 10 * 60;

/** Numbered candidates tried after the plain handle (`ada`, `ada-2`, … `ada-100`). */
export const MAX_HANDLE_SUFFIX = 100;

/** Used when the provider's name reduces to nothing (e.g. a username written only in another script). */
const FALLBACK_HANDLE = 'user';

/**
 * Only a loopback http issuer (a provider on this machine, as in tests) may be reached without TLS:
 * anywhere else the discovery document and keys would be open to tampering on the way.
 */
export function issuerMayUseHttp(issuer: string): boolean {
  return isLoopbackRedirect(issuer);
}

/**
 * `Ada.Lovelace` or `José Núñez` become `ada-lovelace` and `jose-nunez`: a lowercased [a-z0-9-] label.
 * An email (or an email-like username, as some providers send) gives its local part.
 */
export function handleBaseFrom(source: string): string {
  const at = source.indexOf('@');
  const base = (at > 0 ? source.slice(0, at) : source)
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '') // accents fall off their letters rather than turning into dashes
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+/, '')
    .slice(0, HANDLE_MAX_LENGTH)
    .replace(/-+$/, '');
  return base || FALLBACK_HANDLE;
}

/**
 * The handles to try for a new account, in order: the base itself, then `base-2` … `base-100`, each
 * shortened so the suffix fits. Reserved or otherwise invalid names (by the handle rules) are skipped.
 */
export function* handleCandidates(base: string): Generator<string> {
  for (let n = 1; n <= MAX_HANDLE_SUFFIX; n++) {
    const suffix = n === 1 ? '' : `-${n}`;
    const candidate = `${base.slice(0, HANDLE_MAX_LENGTH - suffix.length).replace(/-+$/, '')}${suffix}`;
    if (isValidHandle(candidate)) yield candidate;
  }
}

function isValidHandle(candidate: string): boolean {
  try {
    validateHandle(candidate);
    return true;
  } catch (error) {
    if (isDomainError(error)) return false;
    throw error;
  }
}
