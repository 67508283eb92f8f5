import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Each spec alert's state after the last refresh (edge-triggered notifications need the last status and
 * value), and a dashboard's refresh failure streak (the owner is told once per streak). Both go with
 * their dashboard.
 */
export class AlertStates1700000017000 implements MigrationInterface {
  name = 'AlertStates1700000017000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE dashboard_alert_states (
        dashboard_id uuid NOT NULL REFERENCES dashboards (id) ON DELETE CASCADE,
        alert_id text NOT NULL,
        status text NOT NULL CHECK (status IN ('ok', 'firing')),
        value jsonb,
        changed_at timestamptz NOT NULL,
        checked_at timestamptz NOT NULL,
        PRIMARY KEY (dashboard_id, alert_id)
      )`);
    await queryRunner.query(`
      CREATE TABLE refresh_failure_streaks (
        dashboard_id uuid PRIMARY KEY REFERENCES dashboards (id) ON DELETE CASCADE,
        since timestamptz NOT NULL,
        failures integer NOT NULL,
        last_error text NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE refresh_failure_streaks`);
    await queryRunner.query(`DROP TABLE dashboard_alert_states`);
  }
}
