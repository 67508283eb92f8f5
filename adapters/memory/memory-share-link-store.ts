import { injectable } from 'inversify';
import type { OwnerRef } from '../../domain/scope.js';
import type { ShareLink } from '../../domain/share-links.js';
import type { LinkViews, NewShareLink, ShareLinkStore, ShareSessionFound } from '../../application/ports/share-link-store.js';

type Stored = NewShareLink & { views: number; lastUsedAt: Date | null };

const publicPart = ({ owner: _o, tokenHash: _t, ...link }: Stored): ShareLink => ({ ...link });
const sameOwner = (a: OwnerRef, b: OwnerRef) => a.kind === b.kind && a.id === b.id;

/** Share links and sessions in Maps; one process only. */
@injectable()
export class MemoryShareLinkStore implements ShareLinkStore {
  private readonly links = new Map<string, Stored>();
  private readonly sessions = new Map<string, { linkId: string; expiresAt: Date }>();

  async insert(link: NewShareLink): Promise<void> {
    this.links.set(link.id, { ...link, views: 0, lastUsedAt: null });
  }

  async countForDashboard(dashboardId: string): Promise<number> {
    return [...this.links.values()].filter((l) => l.dashboardId === dashboardId).length;
  }

  async list(owner: OwnerRef, dashboardId?: string): Promise<ShareLink[]> {
    return [...this.links.values()]
      .filter((l) => sameOwner(l.owner, owner) && (dashboardId === undefined || l.dashboardId === dashboardId))
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || b.id.localeCompare(a.id))
      .map(publicPart);
  }

  async findById(id: string): Promise<(ShareLink & { owner: OwnerRef }) | null> {
    const link = this.links.get(id);
    return link ? { ...publicPart(link), owner: link.owner } : null;
  }

  async findByTokenHash(tokenHash: string): Promise<ShareLink | null> {
    for (const link of this.links.values()) if (link.tokenHash === tokenHash) return publicPart(link);
    return null;
  }

  async setPaused(id: string, paused: boolean): Promise<void> {
    const link = this.links.get(id);
    if (link) link.paused = paused;
  }

  async delete(id: string): Promise<void> {
    this.links.delete(id);
    for (const [hash, s] of this.sessions) if (s.linkId === id) this.sessions.delete(hash);
  }

  async saveSession(tokenHash: string, linkId: string, expiresAt: Date): Promise<void> {
    this.sessions.set(tokenHash, { linkId, expiresAt });
  }

  async findSession(tokenHash: string, now: Date): Promise<ShareSessionFound | null> {
    const session = this.sessions.get(tokenHash);
    const link = session && this.links.get(session.linkId);
    if (!session || !link || session.expiresAt <= now) return null;
    return { link: publicPart(link), expiresAt: session.expiresAt };
  }

  async addViews(counts: LinkViews[]): Promise<void> {
    for (const count of counts) {
      const link = this.links.get(count.linkId);
      if (!link) continue;
      link.views += count.views;
      if (!link.lastUsedAt || link.lastUsedAt < count.lastUsedAt) link.lastUsedAt = count.lastUsedAt;
    }
  }

  async purgeExpiredSessions(now: Date): Promise<void> {
    for (const [hash, s] of this.sessions) if (s.expiresAt <= now) this.sessions.delete(hash);
  }
}
