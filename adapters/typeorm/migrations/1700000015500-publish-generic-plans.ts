import type { MigrationInterface, QueryRunner } from 'typeorm';
import { SIGNATURE } from './1700000015200-publish-writes.js';

/** The setting, as this migration makes it (exported for 1700000015600, which writes the function again). */
export const GENERIC_PLANS = `ALTER FUNCTION dashpub_publish${SIGNATURE} SET plan_cache_mode = force_generic_plan`;

/**
 * `dashpub_publish` runs its statements with generic plans only (`plan_cache_mode = force_generic_plan`
 * for the function's calls). PL/pgSQL keeps a plan per statement, but PostgreSQL keeps a custom plan,
 * made anew on every call, for a statement whose generic plan looks dearer than the custom ones did: the
 * touch of stored files (`WHERE sha256 = ANY (p_hashes)`) is costed for ten hashes when the array is
 * unknown and for one when it is known, so it was planned again on every publish, about 6 % of the
 * database's CPU for a 10 KB publish in an on-CPU profile. Every statement in the function looks a row up
 * by key (owner and slug, id, hash, dashboard and seq), so the generic plans are the ones custom planning
 * finds. Under `pgbench`, a publish to a new slug used 3–10 % less of the machine in six interleaved
 * rounds of the 10 KB publish bench (docs/benchmarks.md; docs/decisions/0036-publish-function.md). A migration
 * that writes the function again must set this again.
 */
export class PublishGenericPlans1700000015500 implements MigrationInterface {
  name = 'PublishGenericPlans1700000015500';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(GENERIC_PLANS);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER FUNCTION dashpub_publish${SIGNATURE} RESET plan_cache_mode`);
  }
}
