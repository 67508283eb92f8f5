import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `oauth_grants.refresh_rotated_at` and `refresh_rotation_request`: when the previous refresh token was
 * rotated and a fingerprint of the request that rotated it, so the previous token is honoured only as a
 * retry of that request within REFRESH_RETRY_GRACE_SECONDS (domain/oauth.ts, `decideRefresh`). Rows
 * rotated before this migration have neither, so their previous token no longer retries.
 */
export class RefreshRetryWindow1700000015900 implements MigrationInterface {
  name = 'RefreshRetryWindow1700000015900';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE oauth_grants ADD COLUMN refresh_rotated_at timestamptz, ADD COLUMN refresh_rotation_request text`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE oauth_grants DROP COLUMN refresh_rotated_at, DROP COLUMN refresh_rotation_request`);
  }
}
