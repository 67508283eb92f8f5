import type { DataSource } from 'typeorm';
import type { ViewerSession, ViewerTicket, ViewerTickets } from '../../application/ports/viewer-tickets.js';

/** Viewer tickets and sessions in PostgreSQL, so any instance can exchange a ticket another issued. */
export class TypeormViewerTickets implements ViewerTickets {
  constructor(private readonly dataSource: DataSource) {}

  async saveTicket(tokenHash: string, t: ViewerTicket): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO hosting_viewer_tickets (token_hash, user_id, subdomain, state_hash, expires_at) VALUES ($1, $2, $3, $4, $5)`,
      [tokenHash, t.userId, t.subdomain, t.stateHash, t.expiresAt],
    );
  }

  async takeTicket(tokenHash: string, now: Date): Promise<ViewerTicket | null> {
    // DELETE … RETURNING: of two concurrent exchanges, exactly one gets the row.
    const result: unknown = await this.dataSource.query(
      `DELETE FROM hosting_viewer_tickets WHERE token_hash = $1
       RETURNING user_id, subdomain, state_hash, expires_at`,
      [tokenHash],
    );
    const row = firstRow<{ user_id: string; subdomain: string; state_hash: string; expires_at: Date }>(result);
    if (!row || row.expires_at <= now) return null;
    return { userId: row.user_id, subdomain: row.subdomain, stateHash: row.state_hash, expiresAt: row.expires_at };
  }

  async saveSession(tokenHash: string, s: ViewerSession): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO hosting_viewer_sessions (token_hash, user_id, subdomain, expires_at) VALUES ($1, $2, $3, $4)`,
      [tokenHash, s.userId, s.subdomain, s.expiresAt],
    );
  }

  async findSession(tokenHash: string, now: Date): Promise<ViewerSession | null> {
    const rows: Array<{ user_id: string; subdomain: string; expires_at: Date }> = await this.dataSource.query(
      `SELECT user_id, subdomain, expires_at FROM hosting_viewer_sessions WHERE token_hash = $1 AND expires_at > $2`,
      [tokenHash, now],
    );
    const row = rows[0];
    return row ? { userId: row.user_id, subdomain: row.subdomain, expiresAt: row.expires_at } : null;
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM hosting_viewer_sessions WHERE token_hash = $1`, [tokenHash]);
  }

  /** Its trigger announces the user on the invalidation channel, so other processes forget their cached lookups (migration 1700000015800). */
  async deleteSessionsOfUser(userId: string): Promise<void> {
    await this.dataSource.query(`DELETE FROM hosting_viewer_sessions WHERE user_id = $1`, [userId]);
  }

  async purgeExpired(now: Date): Promise<void> {
    await this.dataSource.query(`DELETE FROM hosting_viewer_tickets WHERE expires_at <= $1`, [now]);
    await this.dataSource.query(`DELETE FROM hosting_viewer_sessions WHERE expires_at <= $1`, [now]);
  }
}

/** TypeORM's postgres driver answers DELETE … RETURNING with `[rows, affected]`. */
function firstRow<T>(result: unknown): T | undefined {
  if (Array.isArray(result) && Array.isArray(result[0])) return result[0][0] as T | undefined;
  if (Array.isArray(result)) return result[0] as T | undefined;
  return undefined;
}
