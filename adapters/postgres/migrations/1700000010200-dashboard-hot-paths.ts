import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The statement trigger that fills `dashboard_tags` for new dashboards, as this migration creates it
 * (exported for migration 1700000015400, whose `down` puts it back; history: extend, do not change).
 */
export const TAGS_INSERTED_PER_STATEMENT = {
  fn: `
      CREATE FUNCTION dashpub_tags_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO dashboard_tags (owner_id, tag, slug, dashboard_id)
        SELECT DISTINCT a.owner_id, t.tag, a.slug, a.id FROM added a CROSS JOIN LATERAL unnest(a.tags) AS t (tag);
        RETURN NULL;
      END $$`,
  trigger: `
      CREATE TRIGGER dashboards_tags_inserted AFTER INSERT ON dashboards
      REFERENCING NEW TABLE AS added FOR EACH STATEMENT EXECUTE FUNCTION dashpub_tags_inserted()`,
};

/**
 * Two hot paths in SQL (docs/decisions/0033-tag-table.md and 0036-publish-function.md):
 *
 * - `dashboard_tags`, one row per (owner, tag, dashboard), keyed (owner_id, tag, slug): a page filtered by a
 *   tag walks this key from the cursor like an untagged page walks (owner_id, slug), however rare the tag
 *   and however many dashboards the owner has. Triggers keep it in step with `dashboards.tags` and slug.
 * - `dashpub_publish`, the write half of a publish in one call and one commit: it takes the owner's write
 *   lock, checks that the slug is still as the caller read it, and stores the files, the row, the version
 *   and the prune. Being a function, each statement after the lock reads what the previous lock holder
 *   committed (one statement would keep the snapshot it took before waiting for the lock).
 */
export class DashboardHotPaths1700000010200 implements MigrationInterface {
  name = 'DashboardHotPaths1700000010200';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE dashboard_tags (
        owner_id uuid NOT NULL,
        tag text NOT NULL,
        slug text COLLATE "C" NOT NULL,
        dashboard_id uuid NOT NULL REFERENCES dashboards (id) ON DELETE CASCADE,
        CONSTRAINT dashboard_tags_pkey PRIMARY KEY (owner_id, tag, slug)
      )`);
    await queryRunner.query(`CREATE INDEX dashboard_tags_dashboard_id_idx ON dashboard_tags (dashboard_id)`);
    await queryRunner.query(`
      INSERT INTO dashboard_tags (owner_id, tag, slug, dashboard_id)
      SELECT DISTINCT d.owner_id, t.tag, d.slug, d.id FROM dashboards d CROSS JOIN LATERAL unnest(d.tags) AS t (tag)`);
    // Inserts are handled per statement, so a bulk insert fills the table in one pass.
    await queryRunner.query(TAGS_INSERTED_PER_STATEMENT.fn);
    await queryRunner.query(TAGS_INSERTED_PER_STATEMENT.trigger);
    await queryRunner.query(`
      CREATE FUNCTION dashpub_tags_updated() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM dashboard_tags WHERE dashboard_id = OLD.id;
        INSERT INTO dashboard_tags (owner_id, tag, slug, dashboard_id)
        SELECT DISTINCT NEW.owner_id, t.tag, NEW.slug, NEW.id FROM unnest(NEW.tags) AS t (tag);
        RETURN NULL;
      END $$`);
    // A republish rewrites the row but rarely its tags or slug: the WHEN keeps the trigger off those.
    await queryRunner.query(`
      CREATE TRIGGER dashboards_tags_updated AFTER UPDATE ON dashboards FOR EACH ROW
      WHEN (OLD.tags IS DISTINCT FROM NEW.tags OR OLD.slug IS DISTINCT FROM NEW.slug OR OLD.owner_id IS DISTINCT FROM NEW.owner_id)
      EXECUTE FUNCTION dashpub_tags_updated()`);

    // Returns the new version's seq, or NULL, having written nothing, when the slug changed since the
    // caller read it (an alias appeared, the dashboard appeared, went, or its row was rewritten: p_expected
    // is the row's xmin as read, NULL for "no dashboard"); the caller then reads again and decides again.
    // The files come as one bytea (sent in binary, no hex doubling) cut at p_sizes, in p_hashes order.
    await queryRunner.query(`
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
      END $$`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION IF EXISTS dashpub_publish`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS dashboards_tags_updated ON dashboards`);
    await queryRunner.query(`DROP TRIGGER IF EXISTS dashboards_tags_inserted ON dashboards`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS dashpub_tags_updated`);
    await queryRunner.query(`DROP FUNCTION IF EXISTS dashpub_tags_inserted`);
    await queryRunner.query(`DROP TABLE IF EXISTS dashboard_tags`);
  }
}
