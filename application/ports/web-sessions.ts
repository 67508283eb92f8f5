/** The browser session cookie of the web app (`{app_url}`), set at sign-in. */
export const SESSION_COOKIE = 'dashpub_session';

/**
 * Its name on an app served over https: the `__Host-` prefix makes browsers accept it only host-only,
 * Secure and on `/`, so a published dashboard (user script on a sibling subdomain) cannot plant a
 * session cookie for the app's parent domain and sign a victim into the attacker's account.
 */
export const sessionCookieName = (appUrl: string): string =>
  new URL(appUrl).protocol === 'https:' ? `__Host-${SESSION_COOKIE}` : SESSION_COOKIE;

export const WebSessions = Symbol.for('WebSessions');
/** Resolves a web-app session cookie value to the signed-in user, or null when absent, expired or signed out. */
export interface WebSessions {
  resolve(sessionToken: string): Promise<{ userId: string } | null>;
}
