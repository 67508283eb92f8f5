import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Upstream OpenID Connect sign-ins linked to users. The key is the provider's own identity of the
 * person (issuer, subject): emails change and are reused, subjects are stable. Deleting a user removes
 * its links; the user_id index serves that cascade.
 */
export class AccountIdentities1700000006000 implements MigrationInterface {
  name = 'AccountIdentities1700000006000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE account_identities (
        issuer text NOT NULL,
        subject text NOT NULL,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT account_identities_pkey PRIMARY KEY (issuer, subject)
      )`);
    await queryRunner.query(`CREATE INDEX account_identities_user_id_idx ON account_identities (user_id)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE IF EXISTS account_identities`);
  }
}
