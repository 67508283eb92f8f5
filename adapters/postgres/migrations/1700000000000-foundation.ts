import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Accounts and dashboards. Names that are compared or ordered in code (handles, slugs) use the "C"
 * collation, so keyset pagination orders by byte value on every server, as the memory adapter does.
 * The dashboard/alias slug namespace and the handle/workspace-slug namespace span two tables each: the
 * stores guard them under advisory locks rather than constraints.
 */
export class Foundation1700000000000 implements MigrationInterface {
  name = 'Foundation1700000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE users (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        handle text COLLATE "C" NOT NULL,
        email text NOT NULL,
        password_hash text,
        plan text NOT NULL DEFAULT 'free',
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT users_handle_key UNIQUE (handle),
        CONSTRAINT users_plan_check CHECK (plan IN ('free', 'pro'))
      )`);
    await queryRunner.query(`CREATE UNIQUE INDEX users_email_lower_key ON users (lower(email))`);
    await queryRunner.query(`
      CREATE TABLE workspaces (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        slug text COLLATE "C" NOT NULL,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        CONSTRAINT workspaces_slug_key UNIQUE (slug)
      )`);
    await queryRunner.query(`
      CREATE TABLE memberships (
        workspace_id uuid NOT NULL REFERENCES workspaces (id) ON DELETE CASCADE,
        user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
        role text NOT NULL,
        CONSTRAINT memberships_pkey PRIMARY KEY (workspace_id, user_id),
        CONSTRAINT memberships_role_check CHECK (role IN ('admin', 'member'))
      )`);
    await queryRunner.query(`CREATE INDEX memberships_user_id_idx ON memberships (user_id)`);
    await queryRunner.query(`
      CREATE TABLE dashboards (
        id uuid PRIMARY KEY,
        owner_kind text NOT NULL,
        owner_id uuid NOT NULL,
        slug text COLLATE "C" NOT NULL,
        name text NOT NULL,
        tags text[] NOT NULL DEFAULT '{}',
        chart text,
        visibility text NOT NULL,
        connection text NOT NULL,
        current_version_id uuid NOT NULL,
        created_by uuid NOT NULL,
        created_at timestamptz NOT NULL,
        updated_at timestamptz NOT NULL,
        CONSTRAINT dashboards_owner_slug_key UNIQUE (owner_id, slug),
        CONSTRAINT dashboards_owner_kind_check CHECK (owner_kind IN ('user', 'workspace')),
        CONSTRAINT dashboards_visibility_check CHECK (visibility IN ('public', 'private'))
      )`);
    await queryRunner.query(`
      CREATE TABLE dashboard_aliases (
        owner_kind text NOT NULL,
        owner_id uuid NOT NULL,
        slug text COLLATE "C" NOT NULL,
        dashboard_id uuid NOT NULL REFERENCES dashboards (id) ON DELETE CASCADE,
        CONSTRAINT dashboard_aliases_pkey PRIMARY KEY (owner_id, slug)
      )`);
    await queryRunner.query(`CREATE INDEX dashboard_aliases_dashboard_id_idx ON dashboard_aliases (dashboard_id)`);
    // The (dashboard_id, seq) unique index also serves listing a dashboard's versions newest first.
    await queryRunner.query(`
      CREATE TABLE dashboard_versions (
        id uuid PRIMARY KEY,
        dashboard_id uuid NOT NULL REFERENCES dashboards (id) ON DELETE CASCADE,
        seq integer NOT NULL,
        name text,
        created_at timestamptz NOT NULL,
        created_by uuid NOT NULL,
        files jsonb NOT NULL,
        spec jsonb,
        CONSTRAINT dashboard_versions_seq_key UNIQUE (dashboard_id, seq)
      )`);
    await queryRunner.query(`
      CREATE TABLE files (
        sha256 text PRIMARY KEY,
        bytes bytea NOT NULL,
        size integer NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['files', 'dashboard_versions', 'dashboard_aliases', 'dashboards', 'memberships', 'workspaces', 'users']) {
      await queryRunner.query(`DROP TABLE IF EXISTS ${table}`);
    }
  }
}
