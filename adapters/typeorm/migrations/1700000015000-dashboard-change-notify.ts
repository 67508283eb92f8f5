import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Every committed change to what a `list_dashboards` answer shows announces its owner on the
 * `dashpub_dashboard_change` channel, so each server process can drop the listing answers it remembers
 * (docs/decisions.md, "Cached list_dashboards answers"). Triggers, as for tokens (1700000010000): every
 * path is covered (the publish function, the use cases' transactions, import, cascades, SQL by hand), and
 * NOTIFY is delivered on commit, so a listener never hears of a change it could not yet read. Identical
 * payloads within one transaction are delivered once, so a publish touching the row, its version and its
 * tags says `owner:<id>` once.
 *
 * What a listing reads: `dashboards` (every column), the current version's row in `dashboard_versions`
 * and, for a tag filter, `dashboard_tags`. Aliases are not listed. A version change matters only for a
 * dashboard's current version (pruning old snapshots says nothing). TRUNCATE names no owner: `all`.
 */
export class DashboardChangeNotify1700000015000 implements MigrationInterface {
  name = 'DashboardChangeNotify1700000015000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE FUNCTION dashpub_notify_owner_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN PERFORM pg_notify('dashpub_dashboard_change', 'owner:' || OLD.owner_id::text); END IF;
        IF TG_OP <> 'DELETE' THEN PERFORM pg_notify('dashpub_dashboard_change', 'owner:' || NEW.owner_id::text); END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION dashpub_notify_version_change() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN
          PERFORM pg_notify('dashpub_dashboard_change', 'owner:' || d.owner_id::text)
            FROM dashboards d WHERE d.id = OLD.dashboard_id AND d.current_version_id = OLD.id;
        END IF;
        IF TG_OP <> 'DELETE' THEN
          PERFORM pg_notify('dashpub_dashboard_change', 'owner:' || d.owner_id::text)
            FROM dashboards d WHERE d.id = NEW.dashboard_id AND d.current_version_id = NEW.id;
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION dashpub_notify_all_owners() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        PERFORM pg_notify('dashpub_dashboard_change', 'all');
        RETURN NULL;
      END $$`);
    for (const table of ['dashboards', 'dashboard_tags']) {
      await queryRunner.query(`
        CREATE TRIGGER ${table}_notify_insert_delete AFTER INSERT OR DELETE ON ${table} FOR EACH ROW
        EXECUTE FUNCTION dashpub_notify_owner_change()`);
      await queryRunner.query(`
        CREATE TRIGGER ${table}_notify_update AFTER UPDATE ON ${table} FOR EACH ROW
        WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION dashpub_notify_owner_change()`);
    }
    await queryRunner.query(`
      CREATE TRIGGER dashboard_versions_notify_insert_delete AFTER INSERT OR DELETE ON dashboard_versions FOR EACH ROW
      EXECUTE FUNCTION dashpub_notify_version_change()`);
    await queryRunner.query(`
      CREATE TRIGGER dashboard_versions_notify_update AFTER UPDATE ON dashboard_versions FOR EACH ROW
      WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION dashpub_notify_version_change()`);
    for (const table of ['dashboards', 'dashboard_versions', 'dashboard_tags']) {
      await queryRunner.query(`
        CREATE TRIGGER ${table}_notify_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT
        EXECUTE FUNCTION dashpub_notify_all_owners()`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['dashboards', 'dashboard_versions', 'dashboard_tags']) {
      await queryRunner.query(`DROP TRIGGER ${table}_notify_truncate ON ${table}`);
      await queryRunner.query(`DROP TRIGGER ${table}_notify_update ON ${table}`);
      await queryRunner.query(`DROP TRIGGER ${table}_notify_insert_delete ON ${table}`);
    }
    await queryRunner.query(`DROP FUNCTION dashpub_notify_all_owners()`);
    await queryRunner.query(`DROP FUNCTION dashpub_notify_version_change()`);
    await queryRunner.query(`DROP FUNCTION dashpub_notify_owner_change()`);
  }
}
