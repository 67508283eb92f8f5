import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every change that can kill an access token announces itself on the `dashpub_token_invalidation`
 * channel, so each server process can drop what its verified-token cache holds
 * (docs/decisions/0038-token-cache.md). A trigger rather than a NOTIFY in application code: it also covers grants
 * removed by a cascade (a deleted user, workspace or client) and edits made by hand in SQL. NOTIFY is delivered on
 * commit, so a listener never hears of a change it could not yet read.
 *
 * Payloads: `grant:<id>` when a grant is revoked, ends, changes what it carries, or is deleted, and
 * when one of its unexpired access tokens is changed or deleted (purging expired tokens says nothing:
 * no cache keeps a token past its expiry); `user:<id>` when a user's handle changes (verified
 * principals carry it).
 */
export class GrantInvalidation1700000010000 implements MigrationInterface {
  name = 'GrantInvalidation1700000010000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION dashpub_notify_grant_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('dashpub_token_invalidation', 'grant:' || OLD.id::text);
        RETURN NULL;
      END
      $$`);
    await queryRunner.query(`
      CREATE TRIGGER oauth_grants_invalidate_update AFTER UPDATE ON oauth_grants FOR EACH ROW
      WHEN (OLD.revoked_at IS DISTINCT FROM NEW.revoked_at
        OR OLD.session_expires_at IS DISTINCT FROM NEW.session_expires_at
        OR OLD.user_id IS DISTINCT FROM NEW.user_id
        OR OLD.lock_kind IS DISTINCT FROM NEW.lock_kind
        OR OLD.lock_workspace_id IS DISTINCT FROM NEW.lock_workspace_id
        OR OLD.lock_workspace_slug IS DISTINCT FROM NEW.lock_workspace_slug
        OR OLD.scope IS DISTINCT FROM NEW.scope)
      EXECUTE FUNCTION dashpub_notify_grant_change()`);
    await queryRunner.query(`
      CREATE TRIGGER oauth_grants_invalidate_delete AFTER DELETE ON oauth_grants FOR EACH ROW
      EXECUTE FUNCTION dashpub_notify_grant_change()`);
    await queryRunner.query(`
      CREATE FUNCTION dashpub_notify_token_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('dashpub_token_invalidation', 'grant:' || OLD.grant_id::text);
        RETURN NULL;
      END
      $$`);
    await queryRunner.query(`
      CREATE TRIGGER oauth_access_tokens_invalidate_update AFTER UPDATE ON oauth_access_tokens FOR EACH ROW
      WHEN (OLD.expires_at IS DISTINCT FROM NEW.expires_at OR OLD.grant_id IS DISTINCT FROM NEW.grant_id OR OLD.token_hash IS DISTINCT FROM NEW.token_hash)
      EXECUTE FUNCTION dashpub_notify_token_change()`);
    await queryRunner.query(`
      CREATE TRIGGER oauth_access_tokens_invalidate_delete AFTER DELETE ON oauth_access_tokens FOR EACH ROW
      WHEN (OLD.expires_at > now())
      EXECUTE FUNCTION dashpub_notify_token_change()`);
    await queryRunner.query(`
      CREATE FUNCTION dashpub_notify_user_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('dashpub_token_invalidation', 'user:' || OLD.id::text);
        RETURN NULL;
      END
      $$`);
    await queryRunner.query(`
      CREATE TRIGGER users_invalidate_update AFTER UPDATE ON users FOR EACH ROW
      WHEN (OLD.handle IS DISTINCT FROM NEW.handle)
      EXECUTE FUNCTION dashpub_notify_user_change()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER users_invalidate_update ON users`);
    await queryRunner.query(`DROP FUNCTION dashpub_notify_user_change()`);
    await queryRunner.query(`DROP TRIGGER oauth_access_tokens_invalidate_delete ON oauth_access_tokens`);
    await queryRunner.query(`DROP TRIGGER oauth_access_tokens_invalidate_update ON oauth_access_tokens`);
    await queryRunner.query(`DROP FUNCTION dashpub_notify_token_change()`);
    await queryRunner.query(`DROP TRIGGER oauth_grants_invalidate_delete ON oauth_grants`);
    await queryRunner.query(`DROP TRIGGER oauth_grants_invalidate_update ON oauth_grants`);
    await queryRunner.query(`DROP FUNCTION dashpub_notify_grant_change()`);
  }
}
