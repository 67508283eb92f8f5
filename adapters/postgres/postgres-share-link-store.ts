import type { DataSource } from 'typeorm';
import type { OwnerRef } from '../../domain/scope.js';
import type { ShareLink } from '../../domain/share-links.js';
import type { LinkViews, NewShareLink, ShareLinkStore, ShareSessionFound } from '../../application/ports/share-link-store.js';

interface LinkRow {
  id: string;
  dashboard_id: string;
  owner_kind: string;
  owner_id: string;
  label: string | null;
  password_hash: string | null;
  expires_at: Date | null;
  paused: boolean;
  pinned_version_id: string | null;
  views: string;
  last_used_at: Date | null;
  created_by: string | null;
  created_at: Date;
}

const LINK_COLUMNS = `l.id, l.dashboard_id, l.owner_kind, l.owner_id, l.label, l.password_hash, l.expires_at, l.paused,
  l.pinned_version_id, l.views, l.last_used_at, l.created_by, l.created_at`;

function toLink(row: LinkRow): ShareLink {
  return {
    id: row.id,
    dashboardId: row.dashboard_id,
    label: row.label,
    passwordHash: row.password_hash,
    expiresAt: row.expires_at,
    paused: row.paused,
    pinnedVersionId: row.pinned_version_id,
    views: Number(row.views),
    lastUsedAt: row.last_used_at,
    createdBy: row.created_by,
    createdAt: row.created_at,
  };
}

/** Share links and sessions in PostgreSQL; the table's trigger announces changes that end access. */
export class PostgresShareLinkStore implements ShareLinkStore {
  constructor(private readonly dataSource: DataSource) {}

  async insert(link: NewShareLink): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO share_links (id, dashboard_id, owner_kind, owner_id, token_hash, label, password_hash, expires_at, paused, pinned_version_id, created_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [link.id, link.dashboardId, link.owner.kind, link.owner.id, link.tokenHash, link.label, link.passwordHash, link.expiresAt, link.paused, link.pinnedVersionId, link.createdBy, link.createdAt],
    );
  }

  async countForDashboard(dashboardId: string): Promise<number> {
    const rows: Array<{ n: string }> = await this.dataSource.query(`SELECT count(*) AS n FROM share_links WHERE dashboard_id = $1`, [dashboardId]);
    return Number(rows[0]?.n ?? 0);
  }

  async list(owner: OwnerRef, dashboardId?: string): Promise<ShareLink[]> {
    const rows: LinkRow[] = await this.dataSource.query(
      `SELECT ${LINK_COLUMNS} FROM share_links l
       WHERE l.owner_kind = $1 AND l.owner_id = $2 AND ($3::uuid IS NULL OR l.dashboard_id = $3::uuid)
       ORDER BY l.created_at DESC, l.id DESC`,
      [owner.kind, owner.id, dashboardId ?? null],
    );
    return rows.map(toLink);
  }

  async findById(id: string): Promise<(ShareLink & { owner: OwnerRef }) | null> {
    const rows: LinkRow[] = await this.dataSource.query(`SELECT ${LINK_COLUMNS} FROM share_links l WHERE l.id = $1`, [id]);
    const row = rows[0];
    return row ? { ...toLink(row), owner: { kind: row.owner_kind as OwnerRef['kind'], id: row.owner_id } } : null;
  }

  async findByTokenHash(tokenHash: string): Promise<ShareLink | null> {
    const rows: LinkRow[] = await this.dataSource.query(`SELECT ${LINK_COLUMNS} FROM share_links l WHERE l.token_hash = $1`, [tokenHash]);
    return rows[0] ? toLink(rows[0]) : null;
  }

  async setPaused(id: string, paused: boolean): Promise<void> {
    await this.dataSource.query(`UPDATE share_links SET paused = $2 WHERE id = $1`, [id, paused]);
  }

  async delete(id: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM share_links WHERE id = $1`, [id]);
  }

  async saveSession(tokenHash: string, linkId: string, expiresAt: Date): Promise<void> {
    await this.dataSource.query(`INSERT INTO share_sessions (token_hash, link_id, expires_at) VALUES ($1, $2, $3)`, [tokenHash, linkId, expiresAt]);
  }

  async findSession(tokenHash: string, now: Date): Promise<ShareSessionFound | null> {
    const rows: Array<LinkRow & { session_expires_at: Date }> = await this.dataSource.query(
      `SELECT ${LINK_COLUMNS}, s.expires_at AS session_expires_at
       FROM share_sessions s JOIN share_links l ON l.id = s.link_id
       WHERE s.token_hash = $1 AND s.expires_at > $2`,
      [tokenHash, now],
    );
    const row = rows[0];
    return row ? { link: toLink(row), expiresAt: row.session_expires_at } : null;
  }

  async addViews(counts: LinkViews[]): Promise<void> {
    if (counts.length === 0) return;
    // One statement for the batch; links revoked meanwhile simply match no row.
    await this.dataSource.query(
      `UPDATE share_links l SET views = l.views + c.views, last_used_at = GREATEST(l.last_used_at, c.last_used_at)
       FROM unnest($1::uuid[], $2::bigint[], $3::timestamptz[]) AS c (id, views, last_used_at)
       WHERE l.id = c.id`,
      [counts.map((c) => c.linkId), counts.map((c) => c.views), counts.map((c) => c.lastUsedAt)],
    );
  }

  async purgeExpiredSessions(now: Date): Promise<void> {
    await this.dataSource.query(`DELETE FROM share_sessions WHERE expires_at <= $1`, [now]);
  }
}
