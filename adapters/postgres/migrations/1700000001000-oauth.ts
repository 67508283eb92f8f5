import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The authorization server and the web app's sessions. Every token, code, request handle and session
 * cookie is stored only as its SHA-256 (hex) and looked up by it. Deleting a user, a workspace or a
 * client takes their grants, and a grant's codes and tokens, with it.
 */
export class OAuth1700000001000 implements MigrationInterface {
  name = 'OAuth1700000001000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE oauth_clients (
        id uuid PRIMARY KEY,
        name text,
        redirect_uris text[] NOT NULL,
        grant_types text[] NOT NULL,
        scope text,
        created_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`
      CREATE TABLE oauth_authorization_requests (
        handle_hash text PRIMARY KEY,
        client_id uuid NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
        redirect_uri text NOT NULL,
        state text,
        code_challenge text NOT NULL,
        requested_scope text,
        scope text NOT NULL,
        resource text NOT NULL,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX oauth_authorization_requests_expires_at_idx ON oauth_authorization_requests (expires_at)`);
    await queryRunner.query(`
      CREATE TABLE oauth_grants (
        id uuid PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        client_id uuid NOT NULL REFERENCES oauth_clients (id) ON DELETE CASCADE,
        lock_kind text NOT NULL,
        lock_workspace_id uuid REFERENCES workspaces (id) ON DELETE CASCADE,
        lock_workspace_slug text,
        scope text NOT NULL,
        resource text NOT NULL,
        created_at timestamptz NOT NULL,
        session_expires_at timestamptz NOT NULL,
        revoked_at timestamptz,
        revoked_reason text,
        refresh_current_hash text,
        refresh_previous_hash text,
        refresh_previous_retry_left boolean NOT NULL DEFAULT false,
        CONSTRAINT oauth_grants_lock_kind_check CHECK (lock_kind IN ('personal', 'workspace', 'legacy')),
        CONSTRAINT oauth_grants_lock_workspace_check CHECK (
          (lock_kind = 'workspace') = (lock_workspace_id IS NOT NULL AND lock_workspace_slug IS NOT NULL)
        )
      )`);
    await queryRunner.query(`CREATE INDEX oauth_grants_user_id_idx ON oauth_grants (user_id)`);
    await queryRunner.query(`CREATE INDEX oauth_grants_client_id_idx ON oauth_grants (client_id)`);
    await queryRunner.query(`CREATE INDEX oauth_grants_lock_workspace_id_idx ON oauth_grants (lock_workspace_id)`);
    await queryRunner.query(`
      CREATE TABLE oauth_codes (
        code_hash text PRIMARY KEY,
        grant_id uuid NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
        client_id uuid NOT NULL,
        redirect_uri text NOT NULL,
        code_challenge text NOT NULL,
        resource text NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz
      )`);
    await queryRunner.query(`CREATE INDEX oauth_codes_grant_id_idx ON oauth_codes (grant_id)`);
    await queryRunner.query(`CREATE INDEX oauth_codes_expires_at_idx ON oauth_codes (expires_at)`);
    await queryRunner.query(`
      CREATE TABLE oauth_access_tokens (
        token_hash text PRIMARY KEY,
        grant_id uuid NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX oauth_access_tokens_grant_id_idx ON oauth_access_tokens (grant_id)`);
    await queryRunner.query(`CREATE INDEX oauth_access_tokens_expires_at_idx ON oauth_access_tokens (expires_at)`);
    // Kept for the grant's life, so reuse of any refresh token ever issued finds (and revokes) its grant.
    await queryRunner.query(`
      CREATE TABLE oauth_refresh_tokens (
        token_hash text PRIMARY KEY,
        grant_id uuid NOT NULL REFERENCES oauth_grants (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX oauth_refresh_tokens_grant_id_idx ON oauth_refresh_tokens (grant_id)`);
    await queryRunner.query(`
      CREATE TABLE web_sessions (
        token_hash text PRIMARY KEY,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX web_sessions_user_id_idx ON web_sessions (user_id)`);
    await queryRunner.query(`CREATE INDEX web_sessions_expires_at_idx ON web_sessions (expires_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of [
      'web_sessions',
      'oauth_refresh_tokens',
      'oauth_access_tokens',
      'oauth_codes',
      'oauth_grants',
      'oauth_authorization_requests',
      'oauth_clients',
    ]) {
      await queryRunner.query(`DROP TABLE ${table}`);
    }
  }
}
