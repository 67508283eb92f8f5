import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * When file bytes were last stored. The sweep of unreferenced files only takes files stored longer ago
 * than its grace period, so a publish or refresh that has stored bytes but not yet committed (or not yet
 * recorded) the manifest pointing at them never loses them.
 */
export class FileSweep1700000005000 implements MigrationInterface {
  name = 'FileSweep1700000005000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE files ADD COLUMN stored_at timestamptz NOT NULL DEFAULT now()`);
    await queryRunner.query(`CREATE INDEX files_stored_at_idx ON files (stored_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX files_stored_at_idx`);
    await queryRunner.query(`ALTER TABLE files DROP COLUMN stored_at`);
  }
}
