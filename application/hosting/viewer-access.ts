import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { inject, injectable, optional } from 'inversify';
import { invalid } from '../../domain/errors.js';
import { Clock } from '../ports/clock.js';
import { IN_PROCESS_ONLY, TokenInvalidations } from '../ports/token-invalidations.js';
import { ViewerTickets } from '../ports/viewer-tickets.js';
import { BoundedCache } from '../../shared/bounded-cache.js';
import { HostingOptions } from './hosting-options.js';

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;
const SUBDOMAIN_PATTERN = /^[a-z0-9-]{1,63}$/;

/** Whether `value` can name a dashboards host's subdomain (checked before it is shown or used). */
export const isViewerSubdomain = (value: unknown): value is string => typeof value === 'string' && SUBDOMAIN_PATTERN.test(value);

export const newToken = () => randomBytes(32).toString('base64url');
const hashOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** A path on the same dashboards host to come back to; anything else becomes `/`. */
export function safeReturnPath(value: unknown): string {
  if (typeof value !== 'string' || value.length > 512) return '/';
  return /^\/(?![/\\])[A-Za-z0-9._~!$&'()*+,;=:@%/?-]*$/.test(value) ? value : '/';
}

/**
 * The private-dashboard sign-in round trip. The dashboards host cannot see the web app's session
 * cookie (another host), so: the host keeps a state nonce in its own cookie and sends the viewer to the
 * web app; the web app, with a signed-in session, issues a one-time ticket bound to the user, the
 * subdomain and the nonce; the host exchanges it for a viewer session cookie of its own. Tickets,
 * nonces and sessions are stored only as SHA-256 hashes.
 *
 * Sessions live in the store, so signing out of the web app ends them everywhere (`endAllFor`). Each request
 * checks its session from a short-lived per-process memory, kept only while the invalidation channel is live:
 * a deleted session announces its user there (migration 1700000015800) and every process forgets its lookups.
 */
@injectable()
export class ViewerAccess {
  private readonly sessions: BoundedCache<Promise<string | null>>;

  constructor(
    @inject(ViewerTickets) private readonly tickets: ViewerTickets,
    @inject(Clock) private readonly clock: Clock,
    @inject(HostingOptions) private readonly options: HostingOptions,
    @inject(TokenInvalidations) @optional() private readonly invalidations: TokenInvalidations = IN_PROCESS_ONLY,
  ) {
    this.sessions = new BoundedCache({ capacity: 20_000, ttlMs: options.metadataTtlMs });
    // A lookup is keyed by token, not user: any user's change forgets them all (sign-outs are rare).
    invalidations.subscribe({ invalidated: (change) => change.kind === 'user' && this.sessions.clear(), reset: () => this.sessions.clear() });
  }

  /** A fresh nonce for the host's state cookie. */
  newState(): string {
    return newToken();
  }

  /** Web app side: the signed-in `userId` may now be let in on `subdomain`. Returns the ticket. */
  async issueTicket(userId: string, subdomain: unknown, state: unknown): Promise<string> {
    if (!isViewerSubdomain(subdomain)) throw invalid('subdomain is not valid');
    if (typeof state !== 'string' || !TOKEN_PATTERN.test(state)) throw invalid('state is not valid');
    const ticket = newToken();
    await this.tickets.saveTicket(hashOf(ticket), {
      userId,
      subdomain,
      stateHash: hashOf(state),
      expiresAt: new Date(this.clock.now().getTime() + this.options.ticketTtlMs),
    });
    return ticket;
  }

  /**
   * Dashboards host side: trades a ticket for a viewer session on `subdomain`. Null when the ticket is
   * unknown, used, expired, for another subdomain, or was not started by this browser (state mismatch:
   * stops a page from signing a viewer in as someone else).
   */
  async exchange(subdomain: string, ticket: unknown, state: string | null): Promise<{ token: string; expiresAt: Date; maxAgeSeconds: number } | null> {
    if (typeof ticket !== 'string' || !TOKEN_PATTERN.test(ticket)) return null;
    const now = this.clock.now();
    const record = await this.tickets.takeTicket(hashOf(ticket), now);
    if (!record || record.subdomain !== subdomain || state === null) return null;
    const expected = Buffer.from(record.stateHash, 'hex');
    const actual = Buffer.from(hashOf(state), 'hex');
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null;
    const token = newToken();
    const expiresAt = new Date(now.getTime() + this.options.viewerSessionTtlMs);
    await this.tickets.saveSession(hashOf(token), { userId: record.userId, subdomain, expiresAt });
    return { token, expiresAt, maxAgeSeconds: Math.floor(this.options.viewerSessionTtlMs / 1000) };
  }

  /** The user a viewer cookie stands for on this subdomain, or null. */
  viewer(subdomain: string, token: string | null): Promise<string | null> {
    if (token === null || !TOKEN_PATTERN.test(token)) return Promise.resolve(null);
    const hash = hashOf(token);
    const nowMs = this.clock.now().getTime();
    const key = `${subdomain}/${hash}`;
    const remember = this.invalidations.live;
    const hit = remember ? this.sessions.get(key, nowMs) : undefined;
    if (hit) return hit;
    const loading = this.tickets.findSession(hash, new Date(nowMs)).then((s) => (s && s.subdomain === subdomain ? s.userId : null));
    if (!remember) return loading;
    this.sessions.set(key, loading, nowMs);
    loading.catch(() => this.sessions.delete(key)); // the caller awaits `loading` and gets the error; only the cache entry is dropped
    return loading;
  }

  async signOut(subdomain: string, token: string | null): Promise<void> {
    if (token === null || !TOKEN_PATTERN.test(token)) return;
    const hash = hashOf(token);
    this.sessions.delete(`${subdomain}/${hash}`);
    await this.tickets.deleteSession(hash);
  }

  /** Signing out of the web app: every viewer session of the user ends, on every subdomain and every process. */
  async endAllFor(userId: string): Promise<void> {
    await this.tickets.deleteSessionsOfUser(userId);
    this.sessions.clear();
  }

  purgeExpired(): Promise<void> {
    return this.tickets.purgeExpired(this.clock.now());
  }
}
