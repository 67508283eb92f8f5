import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Pages drawn for parameter values other than the defaults, per dashboard version and normalised values
 * (gone with the dashboard), and each dashboard's count of such draws in the current minute.
 */
export class ParamRenders1700000017200 implements MigrationInterface {
  name = 'ParamRenders1700000017200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE param_renders (
        dashboard_id uuid NOT NULL REFERENCES dashboards (id) ON DELETE CASCADE,
        version_id uuid NOT NULL,
        values_key text NOT NULL,
        html text NOT NULL,
        sha256 text NOT NULL,
        created_at timestamptz NOT NULL,
        PRIMARY KEY (dashboard_id, version_id, values_key)
      )`);
    await queryRunner.query(`
      CREATE TABLE param_render_budgets (
        dashboard_id uuid PRIMARY KEY REFERENCES dashboards (id) ON DELETE CASCADE,
        window_start timestamptz NOT NULL,
        used integer NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('DROP TABLE param_render_budgets');
    await queryRunner.query('DROP TABLE param_renders');
  }
}
