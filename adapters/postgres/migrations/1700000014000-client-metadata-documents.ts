import type { MigrationInterface, QueryRunner } from 'typeorm';

/** The tables whose client_id references oauth_clients (oauth_codes has no foreign key). */
const REFERENCING = ['oauth_authorization_requests', 'oauth_grants'];

async function dropClientForeignKeys(queryRunner: QueryRunner): Promise<void> {
  for (const table of REFERENCING) await queryRunner.query(`ALTER TABLE ${table} DROP CONSTRAINT ${table}_client_id_fkey`);
}

async function addClientForeignKeys(queryRunner: QueryRunner): Promise<void> {
  for (const table of REFERENCING) {
    await queryRunner.query(`
      ALTER TABLE ${table} ADD CONSTRAINT ${table}_client_id_fkey
        FOREIGN KEY (client_id) REFERENCES oauth_clients (id) ON DELETE CASCADE`);
  }
}

/**
 * Clients identified by a client ID metadata document: their id is the document's URL, so client ids
 * become text (registered clients keep their UUIDs, written as text). `metadata_expires_at` says until
 * when the stored copy of a document may be used instead of fetching it again; null for registered
 * clients. The foreign keys are dropped and added back around the type change.
 */
export class ClientMetadataDocuments1700000014000 implements MigrationInterface {
  name = 'ClientMetadataDocuments1700000014000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await dropClientForeignKeys(queryRunner);
    await queryRunner.query(`ALTER TABLE oauth_clients ALTER COLUMN id TYPE text`);
    for (const table of ['oauth_authorization_requests', 'oauth_grants', 'oauth_codes']) {
      await queryRunner.query(`ALTER TABLE ${table} ALTER COLUMN client_id TYPE text`);
    }
    await addClientForeignKeys(queryRunner);
    await queryRunner.query(`ALTER TABLE oauth_clients ADD COLUMN metadata_expires_at timestamptz`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Clients named by URL cannot become UUIDs: they and everything of theirs go first.
    await queryRunner.query(`DELETE FROM oauth_codes WHERE client_id !~ '^[0-9a-fA-F-]{36}$'`);
    await queryRunner.query(`DELETE FROM oauth_clients WHERE id !~ '^[0-9a-fA-F-]{36}$'`);
    await queryRunner.query(`ALTER TABLE oauth_clients DROP COLUMN metadata_expires_at`);
    await dropClientForeignKeys(queryRunner);
    await queryRunner.query(`ALTER TABLE oauth_clients ALTER COLUMN id TYPE uuid USING id::uuid`);
    for (const table of ['oauth_authorization_requests', 'oauth_grants', 'oauth_codes']) {
      await queryRunner.query(`ALTER TABLE ${table} ALTER COLUMN client_id TYPE uuid USING client_id::uuid`);
    }
    await addClientForeignKeys(queryRunner);
  }
}
