import type { MigrationInterface, QueryRunner } from 'typeorm';
import { publishFunction, SIGNATURE, storeFiles, VARIANTS, type PublishVariant } from './1700000015200-publish-writes.js';
import { GENERIC_PLANS } from './1700000015500-publish-generic-plans.js';

/**
 * The slug as a publish that wrote nothing finds it, read by the function itself (`OUT state json`, NULL when
 * it wrote). The write statement used to end in that read: a `CASE` around a subquery of four joins, run
 * only on a miss, but set up by the executor on every publish, about 6 % of the database's CPU for a 10 KB
 * publish in an on-CPU profile; under `pgbench` a publish to a new slug used 10–14 % less of the machine with
 * the read in the function (six interleaved rounds of the 10 KB publish bench, docs/benchmarks.md;
 * docs/decisions/0036-publish-function.md). Read after
 * the owner's lock, it also sees the publish that held the lock before, where the statement's view was
 * taken before the wait, so a second miss in a row is rarer.
 *
 * The read is `publishStateSelect` of adapters/typeorm/dashboard-sql.ts as it stands at this migration,
 * written out here because a migration's text must not follow later code: a change to those columns needs a
 * migration that writes the function again. `test/adapters/publish-miss.test.ts` checks that a miss answers
 * what the read answers. Generic plans, as migration 1700000015500 set them.
 */
const STATE = `state := (SELECT to_json(s) FROM (
          SELECT d.id, d.owner_kind, d.owner_id, d.slug, d.name, d.tags, d.chart, d.visibility, d.connection,
            d.current_version_id, d.created_by, d.created_at, d.updated_at, d.xmin::text AS row_version, v.id AS v_id,
            v.seq AS v_seq, v.name AS v_name, v.created_at AS v_created_at, v.created_by AS v_created_by, v.files AS v_files,
            v.spec AS v_spec, a.slug IS NOT NULL AS is_alias, ad.slug AS alias_of
          FROM (VALUES (1)) AS one (x)
          LEFT JOIN dashboards d ON d.owner_id = p_owner_id::uuid AND d.owner_kind = p_owner_kind AND d.slug = p_slug
          LEFT JOIN dashboard_versions v ON v.id = d.current_version_id AND v.dashboard_id = d.id
          LEFT JOIN dashboard_aliases a ON a.owner_id = p_owner_id::uuid AND a.owner_kind = p_owner_kind AND a.slug = p_slug
          LEFT JOIN dashboards ad ON ad.id = a.dashboard_id) AS s);
          `;

/** The function as migration 1700000015300 left it, with the state answered. */
const ANSWERING: PublishVariant = {
  ...VARIANTS.after,
  fileStep: storeFiles(false),
  outputs: `${VARIANTS.after.outputs}, OUT state json`,
  missed: STATE,
};

export class PublishAnswersItsMiss1700000015600 implements MigrationInterface {
  name = 'PublishAnswersItsMiss1700000015600';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION dashpub_publish${SIGNATURE}`);
    await queryRunner.query(publishFunction(ANSWERING));
    await queryRunner.query(GENERIC_PLANS);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION dashpub_publish${SIGNATURE}`);
    await queryRunner.query(publishFunction({ ...VARIANTS.after, fileStep: storeFiles(false) }));
    await queryRunner.query(GENERIC_PLANS);
  }
}
