import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Signing out of the web app deletes the user's viewer sessions on every dashboards host; each server process
 * remembers viewer-session lookups for a moment, so a deleted unexpired session announces its user as
 * `user:<id>` on the `dashpub_token_invalidation` channel (migration 1700000010000), and every process forgets
 * its lookups on hearing it. Purging expired sessions says nothing. The index serves the delete by user.
 */
export class ViewerSessionInvalidation1700000015800 implements MigrationInterface {
  name = 'ViewerSessionInvalidation1700000015800';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE INDEX hosting_viewer_sessions_user_id_idx ON hosting_viewer_sessions (user_id)`);
    await queryRunner.query(`
      CREATE FUNCTION dashpub_notify_viewer_session_end() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('dashpub_token_invalidation', 'user:' || OLD.user_id);
        RETURN NULL;
      END
      $$`);
    await queryRunner.query(`
      CREATE TRIGGER hosting_viewer_sessions_invalidate_delete AFTER DELETE ON hosting_viewer_sessions FOR EACH ROW
      WHEN (OLD.expires_at > now())
      EXECUTE FUNCTION dashpub_notify_viewer_session_end()`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TRIGGER hosting_viewer_sessions_invalidate_delete ON hosting_viewer_sessions`);
    await queryRunner.query(`DROP FUNCTION dashpub_notify_viewer_session_end()`);
    await queryRunner.query(`DROP INDEX hosting_viewer_sessions_user_id_idx`);
  }
}
