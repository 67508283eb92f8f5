/** The browser session cookie of the web app (`{app_url}`), set at sign-in. */
export const SESSION_COOKIE = 'dashpub_session';

export const WebSessions = Symbol.for('WebSessions');
/** Resolves a web-app session cookie value to the signed-in user, or null when absent, expired or signed out. */
export interface WebSessions {
  resolve(sessionToken: string): Promise<{ userId: string } | null>;
}
