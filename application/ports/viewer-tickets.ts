/**
 * What a private-dashboard viewer carries: a one-time ticket from the web app, exchanged on the
 * dashboards host for a viewer session. Both are looked up by the SHA-256 of the token (hex); the
 * token itself is never stored.
 */
export interface ViewerTicket {
  userId: string;
  /** The dashboards-host subdomain the ticket may be exchanged on. */
  subdomain: string;
  /** SHA-256 (hex) of the state nonce the dashboards host set as a cookie before the round trip. */
  stateHash: string;
  expiresAt: Date;
}

export interface ViewerSession {
  userId: string;
  subdomain: string;
  expiresAt: Date;
}

export const ViewerTickets = Symbol.for('ViewerTickets');
export interface ViewerTickets {
  saveTicket(tokenHash: string, ticket: ViewerTicket): Promise<void>;
  /** Removes and returns the ticket in one step, so it works once; expired tickets answer null. */
  takeTicket(tokenHash: string, now: Date): Promise<ViewerTicket | null>;
  saveSession(tokenHash: string, session: ViewerSession): Promise<void>;
  /** An unexpired session, or null. */
  findSession(tokenHash: string, now: Date): Promise<ViewerSession | null>;
  deleteSession(tokenHash: string): Promise<void>;
  /** Deletes every session of one user, on every subdomain (signing out of the web app). */
  deleteSessionsOfUser(userId: string): Promise<void>;
  /** Drops expired tickets and sessions. */
  purgeExpired(now: Date): Promise<void>;
}
