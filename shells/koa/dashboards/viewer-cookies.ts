/**
 * Cookies of the dashboards host. Both are host-only (no Domain), so each account subdomain has its
 * own and no other subdomain can read them; under https the `__Host-` prefix also stops a sibling
 * subdomain from planting one (cookie tossing).
 */
export const VIEWER_SIGN_IN_PATH = '/viewer/sign-in';
export const AUTH_PATH = '/_auth';

export interface CookieNames {
  viewer: string;
  state: string;
  secure: boolean;
}

/** The share session for one dashboard: one cookie per slug, so links to two dashboards on one host coexist. */
export const shareCookieName = (names: CookieNames, slug: string) => `${names.secure ? '__Host-' : ''}dashpub_share_${slug}`;

/** Holds a password-protected link's token while its password page is shown, so the token leaves the address bar. */
export const sharePendingCookieName = (names: CookieNames) => `${names.secure ? '__Host-' : ''}dashpub_share_pending`;

export function cookieNames(dashboardScheme: string): CookieNames {
  const secure = dashboardScheme === 'https';
  const prefix = secure ? '__Host-' : '';
  return { viewer: `${prefix}dashpub_viewer`, state: `${prefix}dashpub_viewer_state`, secure };
}

/** Cookie `name` in a Cookie header: its first value, and whether it was sent more than once. */
function scanCookie(header: string | undefined, name: string): { value: string | null; repeated: boolean } {
  let value: string | null = null;
  if (header) {
    for (const part of header.split(';')) {
      const eq = part.indexOf('=');
      if (eq <= 0 || part.slice(0, eq).trim() !== name) continue;
      if (value !== null) return { value, repeated: true };
      value = part.slice(eq + 1).trim();
    }
  }
  return { value, repeated: false };
}

/**
 * The value of cookie `name`, or null when it is missing or sent more than once. A second cookie of one name
 * can only have been planted (a sibling subdomain over http, with a parent Domain or a longer Path), and which
 * one is ours cannot be told, so neither is trusted.
 */
export function readCookie(header: string | undefined, name: string): string | null {
  const { value, repeated } = scanCookie(header, name);
  return repeated ? null : value;
}

/** True when the Cookie header carries `name` more than once. */
export function isDuplicated(header: string | undefined, name: string): boolean {
  return scanCookie(header, name).repeated;
}

const SAFE_PATH = /^\/[A-Za-z0-9._~%!$&'()*+,=:@/-]*$/;
const MAX_CLEARED_PATHS = 8;

/**
 * Set-Cookie values that expire every cookie of `name` this request could have carried: a cookie sent here
 * has a Path that is a prefix of this path and a Domain that is this host or one of its parents. Sent when a
 * name arrives twice, so the planted copy goes too and the next sign-in is not undone (no redirect loop).
 * A `__Host-` cookie cannot be planted (no Domain, Path=/): only its own copy is expired.
 */
export function clearingCookies(name: string, host: string, path: string, secure: boolean): string[] {
  const tail = secure ? '; Secure' : '';
  if (name.startsWith('__Host-')) return [`${name}=; Path=/; Max-Age=0; HttpOnly${tail}`];
  const hostname = host.replace(/:\d+$/, '').toLowerCase();
  const labels = hostname.split('.');
  const numeric = /^[0-9.]+$/.test(hostname) || hostname.startsWith('[');
  const domains: Array<string | null> = [null];
  if (!numeric) for (let i = 1; i < labels.length - 1; i++) domains.push(labels.slice(i).join('.'));
  const paths = ['/'];
  const segments = path.split('/').slice(1);
  for (let i = 1; i <= segments.length && paths.length < MAX_CLEARED_PATHS; i++) {
    const prefix = `/${segments.slice(0, i).join('/')}`;
    if (!SAFE_PATH.test(prefix)) break;
    if (prefix !== '/') paths.push(prefix);
    if (i < segments.length && paths.length < MAX_CLEARED_PATHS) paths.push(`${prefix}/`);
  }
  const unique = [...new Set(paths)];
  return domains.flatMap((domain) => unique.map((p) => `${name}=; Path=${p}; Max-Age=0${domain ? `; Domain=${domain}` : ''}${tail}`));
}

/** Expires every copy of each of `names` that arrived more than once (see clearingCookies). */
export function clearPlantedCookies(
  ctx: { get(field: string): string; path: string; append(field: string, value: string[]): void },
  names: readonly string[],
  secure: boolean,
): boolean {
  const header = ctx.get('cookie');
  let planted = false;
  for (const name of names) {
    if (!isDuplicated(header, name)) continue;
    planted = true;
    ctx.append('Set-Cookie', clearingCookies(name, ctx.get('host'), ctx.path, secure));
  }
  return planted;
}

export function serializeCookie(name: string, value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${name}=${value}; Path=/; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}
