import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The slug as a publish that wrote nothing finds it, read by the function itself (`OUT state json`, NULL when
 * it wrote). The write statement used to end in that read: a `CASE` around a subquery of four joins, run
 * only on a miss, but set up by the executor on every publish (docs/decisions/0036-publish-function.md). Read
 * after the owner's lock, it also sees the publish that held the lock before, where the statement's view was
 * taken before the wait, so a second miss in a row is rarer.
 *
 * The read is `publishStateSelect` of adapters/postgres/dashboard-sql.ts as it stood at this migration:
 * `test/adapters/publish-miss.test.ts` checks that a miss answers what the read answers. Generic plans, as
 * migration 1700000015500 set them. The function texts below are frozen: what this migration installed and
 * what its `down` puts back. The current function is adapters/postgres/sql/dashpub-publish.sql.
 */
export class PublishAnswersItsMiss1700000015600 implements MigrationInterface {
  name = 'PublishAnswersItsMiss1700000015600';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION dashpub_publish${SIGNATURE}`);
    await queryRunner.query(ANSWERING);
    await queryRunner.query(GENERIC_PLANS);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION dashpub_publish${SIGNATURE}`);
    await queryRunner.query(NOT_ANSWERING);
    await queryRunner.query(GENERIC_PLANS);
  }
}

/** The input parameters' types, which name the function (OUT parameters do not). */
const SIGNATURE = `(text, text, text, xid, uuid, text, text[], text, text, text, uuid, timestamptz, timestamptz,
  uuid, uuid, timestamptz, jsonb, jsonb, integer, text[], integer[], bytea)`;

const GENERIC_PLANS = `ALTER FUNCTION dashpub_publish${SIGNATURE} SET plan_cache_mode = force_generic_plan`;

/** The function as migration 1700000015300 created it. */
const NOT_ANSWERING = `
      CREATE FUNCTION dashpub_publish(
        p_owner_kind text, p_owner_id text, p_slug text, p_expected xid,
        p_dashboard_id uuid, p_name text, p_tags text[], p_chart text, p_visibility text, p_connection text,
        p_created_by uuid, p_created_at timestamptz, p_updated_at timestamptz,
        p_version_id uuid, p_version_created_by uuid, p_version_created_at timestamptz, p_files jsonb, p_spec jsonb,
        p_snapshots_kept integer, p_hashes text[], p_sizes integer[], p_blob bytea,
        OUT new_seq integer, OUT new_row_version text
      ) LANGUAGE plpgsql AS $$
      DECLARE
        next_seq integer;
      BEGIN
        -- The same lock, on the same key, as every other change to this owner's dashboards.
        PERFORM pg_advisory_xact_lock(hashtextextended(p_owner_id, 0));
        IF EXISTS (SELECT 1 FROM dashboard_aliases WHERE owner_id = p_owner_id::uuid AND owner_kind = p_owner_kind AND slug = p_slug) THEN
          RETURN;
        END IF;
        IF p_expected IS NULL THEN
          IF EXISTS (SELECT 1 FROM dashboards WHERE owner_id = p_owner_id::uuid AND owner_kind = p_owner_kind AND slug = p_slug) THEN
            RETURN;
          END IF;
          INSERT INTO dashboards (id, owner_kind, owner_id, slug, name, tags, chart, visibility, connection,
                                  current_version_id, created_by, created_at, updated_at)
          VALUES (p_dashboard_id, p_owner_kind, p_owner_id::uuid, p_slug, p_name, p_tags, p_chart, p_visibility, p_connection,
                  p_version_id, p_created_by, p_created_at, p_updated_at)
          RETURNING xmin::text INTO new_row_version;
          next_seq := 1;
        ELSE
          UPDATE dashboards
          SET name = p_name, tags = p_tags, chart = p_chart, visibility = p_visibility, connection = p_connection,
              current_version_id = p_version_id, updated_at = p_updated_at
          WHERE id = p_dashboard_id AND owner_id = p_owner_id::uuid AND owner_kind = p_owner_kind AND slug = p_slug
            AND xmin = p_expected
          RETURNING xmin::text INTO new_row_version;
          IF NOT FOUND THEN
            RETURN;
          END IF;
          SELECT coalesce(max(seq), 0) + 1 INTO next_seq FROM dashboard_versions WHERE dashboard_id = p_dashboard_id;
        END IF;
        -- New bytes are inserted; bytes already stored are marked stored anew only when their mark is old
        -- (see the migration's comment): a fresh row is neither locked nor rewritten. A lone file is the blob
        -- itself, not a copy of it (5 MiB less to copy for a big page).
        INSERT INTO files (sha256, bytes, size)
        SELECT f.sha256, CASE WHEN cardinality(p_hashes) = 1 THEN p_blob ELSE substring(p_blob FROM f.start FOR f.size) END, f.size
        FROM (SELECT h AS sha256, z AS size, 1 + coalesce(sum(z) OVER (ORDER BY n ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)::integer AS start
              FROM unnest(p_hashes, p_sizes) WITH ORDINALITY AS u (h, z, n)
              ORDER BY h) AS f
        ON CONFLICT (sha256) DO NOTHING;
        UPDATE files SET stored_at = now()
        WHERE sha256 = ANY (p_hashes) AND stored_at < now() - interval '1800 seconds';
        INSERT INTO dashboard_versions (id, dashboard_id, seq, name, created_at, created_by, files, spec)
        VALUES (p_version_id, p_dashboard_id, next_seq, NULL, p_version_created_at, p_version_created_by, p_files, p_spec);
        IF next_seq > p_snapshots_kept + 1 THEN
        -- The retention rule: of the unnamed snapshots, the newest p_snapshots_kept stay.
        DELETE FROM dashboard_versions WHERE id IN (
          SELECT id FROM dashboard_versions
          WHERE dashboard_id = p_dashboard_id AND name IS NULL AND id <> p_version_id
          ORDER BY seq DESC OFFSET p_snapshots_kept);
        END IF;
        new_seq := next_seq;
      END $$`;

/** The function as this migration creates it. */
const ANSWERING = `
      CREATE FUNCTION dashpub_publish(
        p_owner_kind text, p_owner_id text, p_slug text, p_expected xid,
        p_dashboard_id uuid, p_name text, p_tags text[], p_chart text, p_visibility text, p_connection text,
        p_created_by uuid, p_created_at timestamptz, p_updated_at timestamptz,
        p_version_id uuid, p_version_created_by uuid, p_version_created_at timestamptz, p_files jsonb, p_spec jsonb,
        p_snapshots_kept integer, p_hashes text[], p_sizes integer[], p_blob bytea,
        OUT new_seq integer, OUT new_row_version text, OUT state json
      ) LANGUAGE plpgsql AS $$
      DECLARE
        next_seq integer;
      BEGIN
        -- The same lock, on the same key, as every other change to this owner's dashboards.
        PERFORM pg_advisory_xact_lock(hashtextextended(p_owner_id, 0));
        IF EXISTS (SELECT 1 FROM dashboard_aliases WHERE owner_id = p_owner_id::uuid AND owner_kind = p_owner_kind AND slug = p_slug) THEN
          state := (SELECT to_json(s) FROM (
          SELECT d.id, d.owner_kind, d.owner_id, d.slug, d.name, d.tags, d.chart, d.visibility, d.connection,
            d.current_version_id, d.created_by, d.created_at, d.updated_at, d.xmin::text AS row_version, v.id AS v_id,
            v.seq AS v_seq, v.name AS v_name, v.created_at AS v_created_at, v.created_by AS v_created_by, v.files AS v_files,
            v.spec AS v_spec, a.slug IS NOT NULL AS is_alias, ad.slug AS alias_of
          FROM (VALUES (1)) AS one (x)
          LEFT JOIN dashboards d ON d.owner_id = p_owner_id::uuid AND d.owner_kind = p_owner_kind AND d.slug = p_slug
          LEFT JOIN dashboard_versions v ON v.id = d.current_version_id AND v.dashboard_id = d.id
          LEFT JOIN dashboard_aliases a ON a.owner_id = p_owner_id::uuid AND a.owner_kind = p_owner_kind AND a.slug = p_slug
          LEFT JOIN dashboards ad ON ad.id = a.dashboard_id) AS s);
          RETURN;
        END IF;
        IF p_expected IS NULL THEN
          IF EXISTS (SELECT 1 FROM dashboards WHERE owner_id = p_owner_id::uuid AND owner_kind = p_owner_kind AND slug = p_slug) THEN
            state := (SELECT to_json(s) FROM (
          SELECT d.id, d.owner_kind, d.owner_id, d.slug, d.name, d.tags, d.chart, d.visibility, d.connection,
            d.current_version_id, d.created_by, d.created_at, d.updated_at, d.xmin::text AS row_version, v.id AS v_id,
            v.seq AS v_seq, v.name AS v_name, v.created_at AS v_created_at, v.created_by AS v_created_by, v.files AS v_files,
            v.spec AS v_spec, a.slug IS NOT NULL AS is_alias, ad.slug AS alias_of
          FROM (VALUES (1)) AS one (x)
          LEFT JOIN dashboards d ON d.owner_id = p_owner_id::uuid AND d.owner_kind = p_owner_kind AND d.slug = p_slug
          LEFT JOIN dashboard_versions v ON v.id = d.current_version_id AND v.dashboard_id = d.id
          LEFT JOIN dashboard_aliases a ON a.owner_id = p_owner_id::uuid AND a.owner_kind = p_owner_kind AND a.slug = p_slug
          LEFT JOIN dashboards ad ON ad.id = a.dashboard_id) AS s);
          RETURN;
          END IF;
          INSERT INTO dashboards (id, owner_kind, owner_id, slug, name, tags, chart, visibility, connection,
                                  current_version_id, created_by, created_at, updated_at)
          VALUES (p_dashboard_id, p_owner_kind, p_owner_id::uuid, p_slug, p_name, p_tags, p_chart, p_visibility, p_connection,
                  p_version_id, p_created_by, p_created_at, p_updated_at)
          RETURNING xmin::text INTO new_row_version;
          next_seq := 1;
        ELSE
          UPDATE dashboards
          SET name = p_name, tags = p_tags, chart = p_chart, visibility = p_visibility, connection = p_connection,
              current_version_id = p_version_id, updated_at = p_updated_at
          WHERE id = p_dashboard_id AND owner_id = p_owner_id::uuid AND owner_kind = p_owner_kind AND slug = p_slug
            AND xmin = p_expected
          RETURNING xmin::text INTO new_row_version;
          IF NOT FOUND THEN
            state := (SELECT to_json(s) FROM (
          SELECT d.id, d.owner_kind, d.owner_id, d.slug, d.name, d.tags, d.chart, d.visibility, d.connection,
            d.current_version_id, d.created_by, d.created_at, d.updated_at, d.xmin::text AS row_version, v.id AS v_id,
            v.seq AS v_seq, v.name AS v_name, v.created_at AS v_created_at, v.created_by AS v_created_by, v.files AS v_files,
            v.spec AS v_spec, a.slug IS NOT NULL AS is_alias, ad.slug AS alias_of
          FROM (VALUES (1)) AS one (x)
          LEFT JOIN dashboards d ON d.owner_id = p_owner_id::uuid AND d.owner_kind = p_owner_kind AND d.slug = p_slug
          LEFT JOIN dashboard_versions v ON v.id = d.current_version_id AND v.dashboard_id = d.id
          LEFT JOIN dashboard_aliases a ON a.owner_id = p_owner_id::uuid AND a.owner_kind = p_owner_kind AND a.slug = p_slug
          LEFT JOIN dashboards ad ON ad.id = a.dashboard_id) AS s);
          RETURN;
          END IF;
          SELECT coalesce(max(seq), 0) + 1 INTO next_seq FROM dashboard_versions WHERE dashboard_id = p_dashboard_id;
        END IF;
        -- New bytes are inserted; bytes already stored are marked stored anew only when their mark is old
        -- (see the migration's comment): a fresh row is neither locked nor rewritten. A lone file is the blob
        -- itself, not a copy of it (5 MiB less to copy for a big page).
        INSERT INTO files (sha256, bytes, size)
        SELECT f.sha256, CASE WHEN cardinality(p_hashes) = 1 THEN p_blob ELSE substring(p_blob FROM f.start FOR f.size) END, f.size
        FROM (SELECT h AS sha256, z AS size, 1 + coalesce(sum(z) OVER (ORDER BY n ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)::integer AS start
              FROM unnest(p_hashes, p_sizes) WITH ORDINALITY AS u (h, z, n)
              ORDER BY h) AS f
        ON CONFLICT (sha256) DO NOTHING;
        UPDATE files SET stored_at = now()
        WHERE sha256 = ANY (p_hashes) AND stored_at < now() - interval '1800 seconds';
        INSERT INTO dashboard_versions (id, dashboard_id, seq, name, created_at, created_by, files, spec)
        VALUES (p_version_id, p_dashboard_id, next_seq, NULL, p_version_created_at, p_version_created_by, p_files, p_spec);
        IF next_seq > p_snapshots_kept + 1 THEN
        -- The retention rule: of the unnamed snapshots, the newest p_snapshots_kept stay.
        DELETE FROM dashboard_versions WHERE id IN (
          SELECT id FROM dashboard_versions
          WHERE dashboard_id = p_dashboard_id AND name IS NULL AND id <> p_version_id
          ORDER BY seq DESC OFFSET p_snapshots_kept);
        END IF;
        new_seq := next_seq;
      END $$`;
