import type { OwnerRef } from '../../domain/scope.js';
import type { ShareLink } from '../../domain/share-links.js';

/** A new link: its token only as SHA-256 (hex), its password only as the hasher's hash. */
export interface NewShareLink extends Omit<ShareLink, 'views' | 'lastUsedAt'> {
  owner: OwnerRef;
  tokenHash: string;
}

/** What a share cookie stands for: the session's own expiry and the link as it is now. */
export interface ShareSessionFound {
  link: ShareLink;
  expiresAt: Date;
}

/** Views through one link since the last write, and when the last of them was. */
export interface LinkViews {
  linkId: string;
  views: number;
  lastUsedAt: Date;
}

export const ShareLinkStore = Symbol.for('ShareLinkStore');
/**
 * Share links and the sessions a browser holds after opening one. Tokens are looked up by SHA-256 (hex);
 * sessions go with their link (revoking deletes both). A change to a link that can end access (paused,
 * revoked) is announced on the invalidation channel where there is one, so cached lookups are dropped.
 */
export interface ShareLinkStore {
  insert(link: NewShareLink): Promise<void>;
  countForDashboard(dashboardId: string): Promise<number>;
  /** The owner's links, or one dashboard's; newest first. */
  list(owner: OwnerRef, dashboardId?: string): Promise<ShareLink[]>;
  findById(id: string): Promise<(ShareLink & { owner: OwnerRef }) | null>;
  findByTokenHash(tokenHash: string): Promise<ShareLink | null>;
  setPaused(id: string, paused: boolean): Promise<void>;
  /** Deletes the link and its sessions. */
  delete(id: string): Promise<void>;
  saveSession(tokenHash: string, linkId: string, expiresAt: Date): Promise<void>;
  /** An unexpired session with its link, or null. */
  findSession(tokenHash: string, now: Date): Promise<ShareSessionFound | null>;
  /** Adds counted views (a batch; links deleted meanwhile are skipped). */
  addViews(counts: LinkViews[]): Promise<void>;
  purgeExpiredSessions(now: Date): Promise<void>;
}
