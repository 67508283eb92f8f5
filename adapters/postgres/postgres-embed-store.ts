import type { DataSource } from 'typeorm';
import { EMBEDDING_OFF, type EmbedSettings } from '../../domain/embeds.js';
import type { OwnerRef } from '../../domain/scope.js';
import type { EmbedSecret, EmbedStore } from '../../application/ports/embed-store.js';
import type { SecretSealer } from '../../application/ports/secret-sealer.js';

/** Embed settings and secrets in PostgreSQL; a secret is sealed by `sealer` on the way in and opened on the way out. */
export class PostgresEmbedStore implements EmbedStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly sealer: SecretSealer,
  ) {}

  async settings(dashboardId: string): Promise<EmbedSettings> {
    const rows: Array<{ enabled: boolean; origins: string[] }> = await this.dataSource.query(
      `SELECT enabled, origins FROM embed_settings WHERE dashboard_id = $1`,
      [dashboardId],
    );
    const row = rows[0];
    return row ? { enabled: row.enabled, origins: row.origins } : { ...EMBEDDING_OFF, origins: [] };
  }

  async saveSettings(dashboardId: string, settings: EmbedSettings, now: Date): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO embed_settings (dashboard_id, enabled, origins, updated_at) VALUES ($1, $2, $3::text[], $4)
       ON CONFLICT (dashboard_id) DO UPDATE SET enabled = EXCLUDED.enabled, origins = EXCLUDED.origins, updated_at = EXCLUDED.updated_at`,
      [dashboardId, settings.enabled, settings.origins, now],
    );
  }

  async secret(owner: OwnerRef): Promise<EmbedSecret | null> {
    const rows: Array<{ sealed_secret: string; created_at: Date }> = await this.dataSource.query(
      `SELECT sealed_secret, created_at FROM embed_secrets WHERE owner_kind = $1 AND owner_id = $2`,
      [owner.kind, owner.id],
    );
    const row = rows[0];
    if (!row) return null;
    try {
      return { secret: this.sealer.open(row.sealed_secret), createdAt: row.created_at };
    } catch {
      return null; // sealed under an earlier SECRET_KEY: as if none, so the owner makes a new one
    }
  }

  async saveSecret(owner: OwnerRef, secret: EmbedSecret): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO embed_secrets (owner_kind, owner_id, sealed_secret, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (owner_kind, owner_id) DO UPDATE SET sealed_secret = EXCLUDED.sealed_secret, created_at = EXCLUDED.created_at`,
      [owner.kind, owner.id, this.sealer.seal(secret.secret), secret.createdAt],
    );
  }
}
