import { inject, injectable, optional } from 'inversify';
import { SHARE_PASSWORD_ATTEMPTS, SHARE_SESSION_TTL_MS, shareLinkStatus, TOO_MANY_SHARE_PASSWORDS, type ShareLink } from '../../domain/share-links.js';
import { BoundedCache } from '../../shared/bounded-cache.js';
import { AccountStore } from '../ports/account-store.js';
import { Clock } from '../ports/clock.js';
import { DashboardStore } from '../ports/dashboard-store.js';
import { PasswordHasher } from '../ports/password-hasher.js';
import { RateLimiter } from '../ports/rate-limiter.js';
import { SecretTokens } from '../ports/secret-tokens.js';
import { ShareLinkStore } from '../ports/share-link-store.js';
import { IN_PROCESS_ONLY, TokenInvalidations } from '../ports/token-invalidations.js';

/** What opening a link leads to; the shell sets the cookie and picks the page or redirect. */
export type ShareOpening =
  | { kind: 'not_found' }
  | { kind: 'password'; linkId: string }
  | { kind: 'rate_limited'; message: string }
  | { kind: 'wrong_password' }
  | { kind: 'session'; slug: string; token: string; maxAgeSeconds: number };

/** What a valid share cookie grants: one dashboard, at its current or its pinned version. */
export interface ShareGrant {
  linkId: string;
  dashboardId: string;
  pinnedVersionId: string | null;
}

interface SessionEntry {
  link: ShareLink;
  expiresAt: Date;
}

/**
 * A shared lookup and, once it settles, what it grants and until when, so the hot path can answer from it
 * without awaiting or allocating.
 */
interface Remembered {
  promise: Promise<SessionEntry | null>;
  settled: boolean;
  /** Null when the session is unknown or its link is paused. */
  grant: ShareGrant | null;
  /** The session's end or the link's expiry, whichever is first. */
  endsAtMs: number;
}

const RATE_BUCKET = 'share_password';
const SESSION_CACHE_TTL_MS = 60_000;

/**
 * The dashboards host's side of share links. Opening a link (with its password when it has one) gives the
 * browser a share session for that one dashboard; every request then checks the session and its link
 * as they are now, so pausing, revoking or expiry ends access at the next request on every instance:
 * lookups are remembered only while the invalidation channel is live, and the link's `share:<id>` change
 * (migration 1700000016000) drops them; expiry is compared with the clock each time.
 */
@injectable()
export class ShareAccess {
  private readonly sessions: BoundedCache<Remembered>;

  constructor(
    @inject(ShareLinkStore) private readonly links: ShareLinkStore,
    @inject(DashboardStore) private readonly dashboards: DashboardStore,
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(SecretTokens) private readonly tokens: SecretTokens,
    @inject(PasswordHasher) private readonly hasher: PasswordHasher,
    @inject(RateLimiter) private readonly limiter: RateLimiter,
    @inject(Clock) private readonly clock: Clock,
    @inject(TokenInvalidations) @optional() private readonly invalidations: TokenInvalidations = IN_PROCESS_ONLY,
  ) {
    this.sessions = new BoundedCache({ capacity: 20_000, ttlMs: SESSION_CACHE_TTL_MS });
    invalidations.subscribe({ invalidated: (change) => change.kind === 'share' && this.sessions.clear(), reset: () => this.sessions.clear() });
  }

  /**
   * `/_share/<token>` on `subdomain`: a session for a link without a password; the password page for one
   * with. With `password` (the page's form), checks it under the per-link-and-address limit.
   */
  async open(subdomain: string, token: string, attempt?: { password: string; address: string }): Promise<ShareOpening> {
    const found = await this.activeLink(subdomain, token);
    if (!found) return { kind: 'not_found' };
    const { link, slug } = found;
    if (link.passwordHash !== null) {
      if (!attempt) return { kind: 'password', linkId: link.id };
      const allowed = await this.limiter.consume(RATE_BUCKET, `${link.id}|${attempt.address}`, SHARE_PASSWORD_ATTEMPTS, 60).catch(() => true); // fail open, like every limit
      if (!allowed) return { kind: 'rate_limited', message: TOO_MANY_SHARE_PASSWORDS };
      if (!(await this.hasher.verify(attempt.password, link.passwordHash))) return { kind: 'wrong_password' };
    }
    return this.startSession(link, slug);
  }

  /** The grant a share cookie carries for the dashboard `dashboardId`, or null. */
  async grant(cookie: string | null, dashboardId: string): Promise<ShareGrant | null> {
    if (cookie === null || !this.tokens.wellFormed(cookie)) return null;
    const now = this.clock.now();
    return grantOf(await this.session(this.tokens.digest(cookie), now), dashboardId, now);
  }

  /**
   * `grant` from memory without waiting, for the hot path: undefined when the session is not remembered
   * (or still loading), which means "ask `grant`", never "no".
   */
  peekGrant(cookie: string, dashboardId: string): ShareGrant | null | undefined {
    if (!this.invalidations.live || !this.tokens.wellFormed(cookie)) return undefined;
    const nowMs = this.clock.now().getTime();
    const hit = this.sessions.get(this.tokens.digest(cookie), nowMs);
    if (!hit?.settled) return undefined;
    const { grant } = hit;
    return grant !== null && grant.dashboardId === dashboardId && nowMs < hit.endsAtMs ? grant : null;
  }

  /** A link changed in this process: forget remembered lookups now (other processes hear the store's announcement). */
  forgetSessions(): void {
    this.sessions.clear();
  }

  purgeExpired(): Promise<void> {
    return this.links.purgeExpiredSessions(this.clock.now());
  }

  private session(hash: string, now: Date): Promise<SessionEntry | null> {
    const nowMs = now.getTime();
    const remember = this.invalidations.live;
    const hit = remember ? this.sessions.get(hash, nowMs) : undefined;
    if (hit) return hit.promise;
    const loading = this.links.findSession(hash, now);
    if (!remember) return loading;
    const entry: Remembered = { promise: loading, settled: false, grant: null, endsAtMs: 0 };
    this.sessions.set(hash, entry, nowMs);
    loading.then(
      (value) => {
        if (value && !value.link.paused) {
          entry.grant = { linkId: value.link.id, dashboardId: value.link.dashboardId, pinnedVersionId: value.link.pinnedVersionId };
          entry.endsAtMs = Math.min(value.expiresAt.getTime(), value.link.expiresAt?.getTime() ?? Infinity);
        }
        entry.settled = true;
      },
      () => this.sessions.delete(hash), // the caller awaits `loading` and gets the error
    );
    return loading;
  }

  /** The link a token names, if it is active and its dashboard lives on `subdomain`. */
  private async activeLink(subdomain: string, token: string): Promise<{ link: ShareLink; slug: string } | null> {
    if (!this.tokens.wellFormed(token)) return null;
    const link = await this.links.findByTokenHash(this.tokens.digest(token));
    if (!link || shareLinkStatus(link, this.clock.now()) !== 'active') return null;
    // Opening a link is once per viewer; the two lookups it still needs go together.
    const [dashboard, owner] = await Promise.all([this.dashboards.findDashboardById(link.dashboardId), this.accounts.findSubdomainOwner(subdomain)]);
    if (!dashboard) return null;
    const ownerId = owner ? (owner.kind === 'user' ? owner.user.id : owner.workspace.id) : null;
    const ownerKind = owner?.kind === 'user' ? 'user' : 'workspace';
    if (ownerId !== dashboard.owner.id || ownerKind !== dashboard.owner.kind) return null;
    return { link, slug: dashboard.slug };
  }

  private async startSession(link: ShareLink, slug: string): Promise<ShareOpening> {
    const now = this.clock.now().getTime();
    const ends = Math.min(now + SHARE_SESSION_TTL_MS, link.expiresAt?.getTime() ?? Infinity);
    const token = this.tokens.generate();
    await this.links.saveSession(this.tokens.digest(token), link.id, new Date(ends));
    return { kind: 'session', slug, token, maxAgeSeconds: Math.max(1, Math.floor((ends - now) / 1000)) };
  }
}

/** What a session grants on one dashboard now: nothing once the session or its link has ended. */
function grantOf(entry: SessionEntry | null, dashboardId: string, now: Date): ShareGrant | null {
  if (!entry || entry.expiresAt <= now) return null;
  const { link } = entry;
  if (link.dashboardId !== dashboardId || shareLinkStatus(link, now) !== 'active') return null;
  return { linkId: link.id, dashboardId, pinnedVersionId: link.pinnedVersionId };
}
