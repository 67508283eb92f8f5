import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Clients identified by a client ID metadata document: their id is the document's URL, so client ids
 * become text (registered clients keep their UUIDs, written as text). `metadata_expires_at` says until
 * when the stored copy of a document may be used instead of fetching it again; null for registered
 * clients. The foreign keys are dropped and added back around the type change.
 */
export class ClientMetadataDocuments1700000014000 implements MigrationInterface {
  name = 'ClientMetadataDocuments1700000014000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE oauth_authorization_requests DROP CONSTRAINT oauth_authorization_requests_client_id_fkey`);
    await queryRunner.query(`ALTER TABLE oauth_grants DROP CONSTRAINT oauth_grants_client_id_fkey`);
    await queryRunner.query(`ALTER TABLE oauth_clients ALTER COLUMN id TYPE text`);
    for (const table of ['oauth_authorization_requests', 'oauth_grants', 'oauth_codes']) {
      await queryRunner.query(`ALTER TABLE ${table} ALTER COLUMN client_id TYPE text`);
    }
    await queryRunner.query(`
      ALTER TABLE oauth_authorization_requests ADD CONSTRAINT oauth_authorization_requests_client_id_fkey
        FOREIGN KEY (client_id) REFERENCES oauth_clients (id) ON DELETE CASCADE`);
    await queryRunner.query(`
      ALTER TABLE oauth_grants ADD CONSTRAINT oauth_grants_client_id_fkey
        FOREIGN KEY (client_id) REFERENCES oauth_clients (id) ON DELETE CASCADE`);
    await queryRunner.query(`ALTER TABLE oauth_clients ADD COLUMN metadata_expires_at timestamptz`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // Clients named by URL cannot become UUIDs: they and everything of theirs go first.
    await queryRunner.query(`DELETE FROM oauth_codes WHERE client_id !~ '^[0-9a-fA-F-]{36}$'`);
    await queryRunner.query(`DELETE FROM oauth_clients WHERE id !~ '^[0-9a-fA-F-]{36}$'`);
    await queryRunner.query(`ALTER TABLE oauth_clients DROP COLUMN metadata_expires_at`);
    await queryRunner.query(`ALTER TABLE oauth_authorization_requests DROP CONSTRAINT oauth_authorization_requests_client_id_fkey`);
    await queryRunner.query(`ALTER TABLE oauth_grants DROP CONSTRAINT oauth_grants_client_id_fkey`);
    await queryRunner.query(`ALTER TABLE oauth_clients ALTER COLUMN id TYPE uuid USING id::uuid`);
    for (const table of ['oauth_authorization_requests', 'oauth_grants', 'oauth_codes']) {
      await queryRunner.query(`ALTER TABLE ${table} ALTER COLUMN client_id TYPE uuid USING client_id::uuid`);
    }
    await queryRunner.query(`
      ALTER TABLE oauth_authorization_requests ADD CONSTRAINT oauth_authorization_requests_client_id_fkey
        FOREIGN KEY (client_id) REFERENCES oauth_clients (id) ON DELETE CASCADE`);
    await queryRunner.query(`
      ALTER TABLE oauth_grants ADD CONSTRAINT oauth_grants_client_id_fkey
        FOREIGN KEY (client_id) REFERENCES oauth_clients (id) ON DELETE CASCADE`);
  }
}
