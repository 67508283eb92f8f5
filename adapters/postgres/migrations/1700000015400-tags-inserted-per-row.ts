import type { MigrationInterface, QueryRunner } from 'typeorm';
import { TAGS_INSERTED_PER_STATEMENT } from './1700000010200-dashboard-hot-paths.js';

/**
 * `dashboard_tags` is filled for a new dashboard by a row trigger that fires only when the row has tags,
 * instead of the statement trigger of migration 1700000010200, which ran for every INSERT into
 * `dashboards`: capturing the inserted rows as a transition table, calling the function and running its
 * INSERT … SELECT, tags or none. A first publish is one row in one statement, and an untagged one then
 * costs the trigger nothing at all; under `pgbench`, `dashpub_publish` to a new untagged slug used about 7 %
 * less of the machine per call, and to a tagged one no more (the 10 KB publish bench, docs/benchmarks.md;
 * docs/decisions/0033-tag-table.md).
 * What the statement trigger was for, one pass for a bulk insert, only the benchmarks' bulk loads used.
 */
const TAGS_INSERTED_PER_ROW = {
  fn: `
      CREATE FUNCTION dashpub_tags_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO dashboard_tags (owner_id, tag, slug, dashboard_id)
        SELECT DISTINCT NEW.owner_id, t.tag, NEW.slug, NEW.id FROM unnest(NEW.tags) AS t (tag);
        RETURN NULL;
      END $$`,
  trigger: `
      CREATE TRIGGER dashboards_tags_inserted AFTER INSERT ON dashboards FOR EACH ROW
      WHEN (cardinality(NEW.tags) > 0) EXECUTE FUNCTION dashpub_tags_inserted()`,
};

/** The trigger and its function replaced by `next` (both keep their names). */
async function replaceTrigger(queryRunner: QueryRunner, next: { fn: string; trigger: string }): Promise<void> {
  await queryRunner.query(`DROP TRIGGER dashboards_tags_inserted ON dashboards`);
  await queryRunner.query(`DROP FUNCTION dashpub_tags_inserted()`);
  await queryRunner.query(next.fn);
  await queryRunner.query(next.trigger);
}

export class TagsInsertedPerRow1700000015400 implements MigrationInterface {
  name = 'TagsInsertedPerRow1700000015400';

  async up(queryRunner: QueryRunner): Promise<void> {
    await replaceTrigger(queryRunner, TAGS_INSERTED_PER_ROW);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await replaceTrigger(queryRunner, TAGS_INSERTED_PER_STATEMENT);
  }
}
