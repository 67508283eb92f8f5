import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `dashboard_versions.refreshable`: whether the version's spec has queries (a non-empty `queries` object, the
 * rule of `isRefreshableSpec` in domain/dashboard-spec.ts), kept by PostgreSQL as a stored generated column.
 * A listing (`list_dashboards`, resources/list, the web app's dashboards page) shows each dashboard's
 * `refreshable` and nothing else of its spec; reading it from the spec made every listed row carry its whole
 * spec, which may be up to 5 MiB of inline data, to the server or through the database's decompression
 * (docs/decisions/0032-listings-read-no-spec.md). Generated rather than written by the publish paths, so every
 * insert and update of a version (publish, restore, hand-made SQL) keeps it right, and existing rows are filled
 * as the column is added: this rewrites `dashboard_versions` once, under its lock, reading each spec once.
 */
export class VersionRefreshable1700000015700 implements MigrationInterface {
  name = 'VersionRefreshable1700000015700';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      ALTER TABLE dashboard_versions ADD COLUMN refreshable boolean NOT NULL
        GENERATED ALWAYS AS ((jsonb_typeof(spec -> 'queries') = 'object' AND spec -> 'queries' <> '{}'::jsonb) IS TRUE) STORED`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE dashboard_versions DROP COLUMN refreshable`);
  }
}
