import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `dashpub_publish` runs its statements with generic plans only (`plan_cache_mode = force_generic_plan`
 * for the function's calls). PL/pgSQL keeps a plan per statement, but PostgreSQL keeps a custom plan,
 * made anew on every call, for a statement whose generic plan looks dearer than the custom ones did: the
 * touch of stored files (`WHERE sha256 = ANY (p_hashes)`) is costed for ten hashes when the array is
 * unknown and for one when it is known, so it was planned again on every publish. Every statement in the
 * function looks a row up by key (owner and slug, id, hash, dashboard and seq), so the generic plans are the
 * ones custom planning finds (docs/decisions/0036-publish-function.md). A migration that creates the function
 * again must set this again.
 */
export class PublishGenericPlans1700000015500 implements MigrationInterface {
  name = 'PublishGenericPlans1700000015500';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER FUNCTION dashpub_publish${SIGNATURE} SET plan_cache_mode = force_generic_plan`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER FUNCTION dashpub_publish${SIGNATURE} RESET plan_cache_mode`);
  }
}

/** The input parameters' types, which name the function (OUT parameters do not). */
const SIGNATURE = `(text, text, text, xid, uuid, text, text[], text, text, text, uuid, timestamptz, timestamptz,
  uuid, uuid, timestamptz, jsonb, jsonb, integer, text[], integer[], bytea)`;
