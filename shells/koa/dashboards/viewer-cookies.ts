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

export function cookieNames(dashboardScheme: string): CookieNames {
  const secure = dashboardScheme === 'https';
  const prefix = secure ? '__Host-' : '';
  return { viewer: `${prefix}dashpub_viewer`, state: `${prefix}dashpub_viewer_state`, secure };
}

export function readCookie(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

export function serializeCookie(name: string, value: string, maxAgeSeconds: number, secure: boolean): string {
  return `${name}=${value}; Path=/; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
}
