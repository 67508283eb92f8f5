import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * `dashpub_publish` (migration 1700000010200), changed in two ways:
 *
 * - Bytes published again no longer lock their `files` row until commit. Every file was stored with
 *   `ON CONFLICT (sha256) DO UPDATE SET stored_at = now()`, so two publishes of the same bytes, by any
 *   owners, queued on that one row until the first one's commit was flushed, and each wrote a new row
 *   version (with new entries in both of its indexes) for nothing. Now the row is marked stored anew only
 *   when its mark is older than half the sweep's grace (30 of 60 minutes; FILE_TOUCH_AGE_SECONDS in
 *   application/ports/file-sweeper.ts): a file found with a fresher mark cannot reach the grace, and so the
 *   sweep, while the transaction that found it is still open. An older mark is touched as before, and that
 *   row lock is what makes a sweep in flight wait and re-check (adapters/postgres/typeorm-file-sweeper.ts).
 * - It answers the written row's version (`xmin`) with the new version's number, so the store can offer it
 *   as `p_expected` to the next publish of the slug. Both come NULL, as the number alone did, when the slug
 *   changed since the caller read it.
 *
 * The function texts below are frozen: what this migration installed and what its `down` puts back. The
 * current function is adapters/postgres/sql/dashpub-publish.sql.
 */
export class PublishWrites1700000015200 implements MigrationInterface {
  name = 'PublishWrites1700000015200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION dashpub_publish${SIGNATURE}`);
    await queryRunner.query(AFTER);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION dashpub_publish${SIGNATURE}`);
    await queryRunner.query(BEFORE);
  }
}

/** The input parameters' types, which name the function for DROP (OUT parameters do not). */
const SIGNATURE = `(text, text, text, xid, uuid, text, text[], text, text, text, uuid, timestamptz, timestamptz,
  uuid, uuid, timestamptz, jsonb, jsonb, integer, text[], integer[], bytea)`;

/** The function as migration 1700000010200 created it. */
const BEFORE = `
      CREATE FUNCTION dashpub_publish(
        p_owner_kind text, p_owner_id text, p_slug text, p_expected xid,
        p_dashboard_id uuid, p_name text, p_tags text[], p_chart text, p_visibility text, p_connection text,
        p_created_by uuid, p_created_at timestamptz, p_updated_at timestamptz,
        p_version_id uuid, p_version_created_by uuid, p_version_created_at timestamptz, p_files jsonb, p_spec jsonb,
        p_snapshots_kept integer, p_hashes text[], p_sizes integer[], p_blob bytea
      ) RETURNS integer LANGUAGE plpgsql AS $$
      DECLARE
        next_seq integer;
      BEGIN
        -- The same lock, on the same key, as every other change to this owner's dashboards.
        PERFORM pg_advisory_xact_lock(hashtextextended(p_owner_id, 0));
        IF EXISTS (SELECT 1 FROM dashboard_aliases WHERE owner_id = p_owner_id::uuid AND owner_kind = p_owner_kind AND slug = p_slug) THEN
          RETURN NULL;
        END IF;
        IF p_expected IS NULL THEN
          IF EXISTS (SELECT 1 FROM dashboards WHERE owner_id = p_owner_id::uuid AND owner_kind = p_owner_kind AND slug = p_slug) THEN
            RETURN NULL;
          END IF;
          INSERT INTO dashboards (id, owner_kind, owner_id, slug, name, tags, chart, visibility, connection,
                                  current_version_id, created_by, created_at, updated_at)
          VALUES (p_dashboard_id, p_owner_kind, p_owner_id::uuid, p_slug, p_name, p_tags, p_chart, p_visibility, p_connection,
                  p_version_id, p_created_by, p_created_at, p_updated_at);
          next_seq := 1;
        ELSE
          UPDATE dashboards
          SET name = p_name, tags = p_tags, chart = p_chart, visibility = p_visibility, connection = p_connection,
              current_version_id = p_version_id, updated_at = p_updated_at
          WHERE id = p_dashboard_id AND owner_id = p_owner_id::uuid AND owner_kind = p_owner_kind AND slug = p_slug
            AND xmin = p_expected;
          IF NOT FOUND THEN
            RETURN NULL;
          END IF;
          SELECT coalesce(max(seq), 0) + 1 INTO next_seq FROM dashboard_versions WHERE dashboard_id = p_dashboard_id;
        END IF;
        -- Touching stored_at keeps the file sweep off bytes referenced again (see typeorm-file-sweeper.ts).
        INSERT INTO files (sha256, bytes, size)
        SELECT f.sha256, substring(p_blob FROM f.start FOR f.size), f.size
        FROM (SELECT h AS sha256, z AS size, 1 + coalesce(sum(z) OVER (ORDER BY n ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0)::integer AS start
              FROM unnest(p_hashes, p_sizes) WITH ORDINALITY AS u (h, z, n)) AS f
        ORDER BY f.sha256
        ON CONFLICT (sha256) DO UPDATE SET stored_at = now();
        INSERT INTO dashboard_versions (id, dashboard_id, seq, name, created_at, created_by, files, spec)
        VALUES (p_version_id, p_dashboard_id, next_seq, NULL, p_version_created_at, p_version_created_by, p_files, p_spec);
        -- The retention rule: of the unnamed snapshots, the newest p_snapshots_kept stay.
        DELETE FROM dashboard_versions WHERE id IN (
          SELECT id FROM dashboard_versions
          WHERE dashboard_id = p_dashboard_id AND name IS NULL AND id <> p_version_id
          ORDER BY seq DESC OFFSET p_snapshots_kept);
        RETURN next_seq;
      END $$`;

/** The function as this migration creates it. */
const AFTER = `
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
              FROM unnest(p_hashes, p_sizes) WITH ORDINALITY AS u (h, z, n)) AS f
        ORDER BY f.sha256
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
