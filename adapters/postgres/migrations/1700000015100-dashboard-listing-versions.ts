import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `dashboard_listing_versions`: one row per owner whose number changes in the same transaction as anything a
 * `list_dashboards` answer shows, so a process may answer a listing it remembers only while the number it
 * reads is the one the answer was built under (docs/decisions/0046-list-answer-cache.md). Triggers,
 * so every path is covered: the publish function, the use cases' transactions, import, cascades, SQL by hand.
 *
 * What a listing reads: `dashboards` (every column), the current version's row in `dashboard_versions` and,
 * for a tag filter, `dashboard_tags`. Aliases are not listed; pruning or naming an old snapshot says nothing.
 * Numbers come from one sequence, so an owner's number never comes back even if its row is deleted (an
 * owner without a row is never cached); a TRUNCATE moves every owner's number.
 *
 * Not NOTIFY: a transaction that notifies takes a database-wide lock from before its commit until after its
 * commit record is flushed, which would queue every publish's commit behind every other's.
 */
export class DashboardListingVersions1700000015100 implements MigrationInterface {
  name = 'DashboardListingVersions1700000015100';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`CREATE SEQUENCE dashboard_listing_version_seq`);
    await queryRunner.query(`
      CREATE TABLE dashboard_listing_versions (
        owner_id uuid NOT NULL CONSTRAINT dashboard_listing_versions_pkey PRIMARY KEY,
        version bigint NOT NULL
      )`);
    await queryRunner.query(`
      INSERT INTO dashboard_listing_versions (owner_id, version)
      SELECT owner_id, nextval('dashboard_listing_version_seq') FROM dashboards GROUP BY owner_id`);
    // Once per owner and transaction: a publish touches the row, its version and its tags, and one new number
    // says it all. The check is a read (the row's xmin already being this transaction's), not a second
    // upsert, which would lock and log the row again.
    await queryRunner.query(`
      CREATE FUNCTION dashpub_listing_changed(p_owner uuid) RETURNS void LANGUAGE plpgsql AS $$
      BEGIN
        IF EXISTS (SELECT 1 FROM dashboard_listing_versions WHERE owner_id = p_owner AND xmin = pg_current_xact_id()::xid) THEN RETURN; END IF;
        INSERT INTO dashboard_listing_versions AS l (owner_id, version) VALUES (p_owner, nextval('dashboard_listing_version_seq'))
        ON CONFLICT (owner_id) DO UPDATE SET version = nextval('dashboard_listing_version_seq');
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION dashpub_listing_row_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN PERFORM dashpub_listing_changed(OLD.owner_id); END IF;
        IF TG_OP <> 'DELETE' AND (TG_OP = 'INSERT' OR NEW.owner_id IS DISTINCT FROM OLD.owner_id) THEN
          PERFORM dashpub_listing_changed(NEW.owner_id);
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION dashpub_listing_version_changed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP <> 'INSERT' THEN
          PERFORM dashpub_listing_changed(d.owner_id) FROM dashboards d WHERE d.id = OLD.dashboard_id AND d.current_version_id = OLD.id;
        END IF;
        IF TG_OP <> 'DELETE' THEN
          PERFORM dashpub_listing_changed(d.owner_id) FROM dashboards d WHERE d.id = NEW.dashboard_id AND d.current_version_id = NEW.id;
        END IF;
        RETURN NULL;
      END $$`);
    await queryRunner.query(`
      CREATE FUNCTION dashpub_listing_truncated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        UPDATE dashboard_listing_versions SET version = nextval('dashboard_listing_version_seq');
        RETURN NULL;
      END $$`);
    for (const table of ['dashboards', 'dashboard_tags']) {
      await queryRunner.query(`
        CREATE TRIGGER ${table}_listing_insert_delete AFTER INSERT OR DELETE ON ${table} FOR EACH ROW
        EXECUTE FUNCTION dashpub_listing_row_changed()`);
      await queryRunner.query(`
        CREATE TRIGGER ${table}_listing_update AFTER UPDATE ON ${table} FOR EACH ROW
        WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION dashpub_listing_row_changed()`);
    }
    await queryRunner.query(`
      CREATE TRIGGER dashboard_versions_listing_insert_delete AFTER INSERT OR DELETE ON dashboard_versions FOR EACH ROW
      EXECUTE FUNCTION dashpub_listing_version_changed()`);
    await queryRunner.query(`
      CREATE TRIGGER dashboard_versions_listing_update AFTER UPDATE ON dashboard_versions FOR EACH ROW
      WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION dashpub_listing_version_changed()`);
    for (const table of ['dashboards', 'dashboard_versions', 'dashboard_tags']) {
      await queryRunner.query(`
        CREATE TRIGGER ${table}_listing_truncate AFTER TRUNCATE ON ${table} FOR EACH STATEMENT
        EXECUTE FUNCTION dashpub_listing_truncated()`);
    }
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    for (const table of ['dashboards', 'dashboard_versions', 'dashboard_tags']) {
      await queryRunner.query(`DROP TRIGGER ${table}_listing_truncate ON ${table}`);
      await queryRunner.query(`DROP TRIGGER ${table}_listing_update ON ${table}`);
      await queryRunner.query(`DROP TRIGGER ${table}_listing_insert_delete ON ${table}`);
    }
    await queryRunner.query(`DROP FUNCTION dashpub_listing_truncated()`);
    await queryRunner.query(`DROP FUNCTION dashpub_listing_version_changed()`);
    await queryRunner.query(`DROP FUNCTION dashpub_listing_row_changed()`);
    await queryRunner.query(`DROP FUNCTION dashpub_listing_changed(uuid)`);
    await queryRunner.query(`DROP TABLE dashboard_listing_versions`);
    await queryRunner.query(`DROP SEQUENCE dashboard_listing_version_seq`);
  }
}
