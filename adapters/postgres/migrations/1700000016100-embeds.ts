import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Signed embeds: each dashboard's embedding switch and allowed origins (gone with the dashboard), and
 * each owner's embed secret, sealed with SECRET_KEY (AES-256-GCM) because verifying an HMAC needs it back.
 */
export class Embeds1700000016100 implements MigrationInterface {
  name = 'Embeds1700000016100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE embed_settings (
        dashboard_id uuid PRIMARY KEY REFERENCES dashboards (id) ON DELETE CASCADE,
        enabled boolean NOT NULL,
        origins text[] NOT NULL,
        updated_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`
      CREATE TABLE embed_secrets (
        owner_kind text NOT NULL,
        owner_id uuid NOT NULL,
        sealed_secret text NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (owner_kind, owner_id)
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE embed_secrets`);
    await queryRunner.query(`DROP TABLE embed_settings`);
  }
}
