import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Warehouse connections (URL sealed with AES-256-GCM) and refresh state: schedules, the run log and
 * the live render each dashboard's last good refresh produced. No foreign keys to dashboards: refresh
 * state of a deleted dashboard is inert (every reader starts from a live dashboard row).
 */
export class ConnectionsRefresh1700000003000 implements MigrationInterface {
  name = 'ConnectionsRefresh1700000003000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE connections (
        id uuid PRIMARY KEY,
        owner_user_id text NOT NULL,
        workspace_id text NULL,
        label text NOT NULL,
        kind text NOT NULL DEFAULT 'postgres',
        url_sealed text NOT NULL,
        status text NOT NULL CHECK (status IN ('pending', 'active', 'failing', 'disabled')),
        last_tested_at timestamptz NULL,
        last_error text NULL,
        created_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX connections_owner_idx ON connections (owner_user_id, workspace_id)`);
    await queryRunner.query(`CREATE INDEX connections_workspace_idx ON connections (workspace_id)`);
    await queryRunner.query(`
      CREATE TABLE refresh_schedules (
        dashboard_id uuid PRIMARY KEY,
        cron text NOT NULL,
        timezone text NOT NULL,
        next_run_at timestamptz NULL
      )`);
    await queryRunner.query(`CREATE INDEX refresh_schedules_next_run_idx ON refresh_schedules (next_run_at)`);
    await queryRunner.query(`
      CREATE TABLE refresh_runs (
        id uuid PRIMARY KEY,
        dashboard_id uuid NOT NULL,
        trigger text NOT NULL,
        started_at timestamptz NOT NULL,
        duration_ms integer NOT NULL,
        outcome text NOT NULL,
        rows integer NOT NULL,
        error text NULL
      )`);
    await queryRunner.query(`CREATE INDEX refresh_runs_dashboard_idx ON refresh_runs (dashboard_id, started_at)`);
    await queryRunner.query(`
      CREATE TABLE dashboard_live_renders (
        dashboard_id uuid PRIMARY KEY,
        version_id uuid NOT NULL,
        files jsonb NOT NULL,
        rendered_at timestamptz NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE dashboard_live_renders`);
    await queryRunner.query(`DROP TABLE refresh_runs`);
    await queryRunner.query(`DROP TABLE refresh_schedules`);
    await queryRunner.query(`DROP TABLE connections`);
  }
}
