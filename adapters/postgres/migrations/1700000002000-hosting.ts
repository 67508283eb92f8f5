import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Hosting: daily view counts (no foreign key, so a batch of counts never fails on a dashboard deleted
 * meanwhile; readers join on dashboards anyway) and the private-dashboard viewer tickets and sessions.
 */
export class Hosting1700000002000 implements MigrationInterface {
  name = 'Hosting1700000002000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE dashboard_views_daily (
        dashboard_id uuid NOT NULL,
        day date NOT NULL,
        views bigint NOT NULL,
        CONSTRAINT dashboard_views_daily_pkey PRIMARY KEY (dashboard_id, day)
      )`);
    await queryRunner.query(`
      CREATE TABLE hosting_viewer_tickets (
        token_hash text PRIMARY KEY,
        user_id text NOT NULL,
        subdomain text NOT NULL,
        state_hash text NOT NULL,
        expires_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX hosting_viewer_tickets_expires_at_idx ON hosting_viewer_tickets (expires_at)`);
    await queryRunner.query(`
      CREATE TABLE hosting_viewer_sessions (
        token_hash text PRIMARY KEY,
        user_id text NOT NULL,
        subdomain text NOT NULL,
        expires_at timestamptz NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      )`);
    await queryRunner.query(`CREATE INDEX hosting_viewer_sessions_expires_at_idx ON hosting_viewer_sessions (expires_at)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE hosting_viewer_sessions`);
    await queryRunner.query(`DROP TABLE hosting_viewer_tickets`);
    await queryRunner.query(`DROP TABLE dashboard_views_daily`);
  }
}
