import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Share links and the sessions browsers hold after opening one. Tokens are stored as SHA-256 (hex),
 * passwords as the password hasher's hash. Sessions go with their link; links with their dashboard. A
 * change that can end access (paused, expiry or pin changed, revoked, dashboard deleted) announces
 * `share:<id>` on the invalidation channel (migration 1700000010000), so every process forgets cached
 * session lookups; view counts do not. The pinned version has no foreign key: a pruned pinned version
 * ends the link's access rather than silently following the current one.
 */
export class ShareLinks1700000016000 implements MigrationInterface {
  name = 'ShareLinks1700000016000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE share_links (
        id uuid PRIMARY KEY,
        dashboard_id uuid NOT NULL REFERENCES dashboards (id) ON DELETE CASCADE,
        owner_kind text NOT NULL,
        owner_id uuid NOT NULL,
        token_hash text NOT NULL UNIQUE,
        label text,
        password_hash text,
        expires_at timestamptz,
        paused boolean NOT NULL DEFAULT false,
        pinned_version_id uuid,
        views bigint NOT NULL DEFAULT 0,
        last_used_at timestamptz,
        created_by text,
        created_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX share_links_owner_idx ON share_links (owner_kind, owner_id, created_at DESC)`);
    await queryRunner.query(`CREATE INDEX share_links_dashboard_idx ON share_links (dashboard_id)`);
    await queryRunner.query(`
      CREATE TABLE share_sessions (
        token_hash text PRIMARY KEY,
        link_id uuid NOT NULL REFERENCES share_links (id) ON DELETE CASCADE,
        expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX share_sessions_link_idx ON share_sessions (link_id)`);
    await queryRunner.query(`CREATE INDEX share_sessions_expires_at_idx ON share_sessions (expires_at)`);
    await queryRunner.query(`
      CREATE FUNCTION dashpub_notify_share_link_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('dashpub_token_invalidation', 'share:' || OLD.id);
        RETURN NULL;
      END
      $$`);
    await queryRunner.query(`
      CREATE TRIGGER share_links_invalidate AFTER UPDATE OF paused, expires_at, pinned_version_id, password_hash OR DELETE ON share_links
      FOR EACH ROW EXECUTE FUNCTION dashpub_notify_share_link_change()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE share_sessions`);
    await queryRunner.query(`DROP TABLE share_links`);
    await queryRunner.query(`DROP FUNCTION dashpub_notify_share_link_change()`);
  }
}
