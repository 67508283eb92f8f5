import type { DataSource } from 'typeorm';
import type { CatalogQuery, CatalogRow, DashboardCatalog, DashboardKind } from '../../application/ports/dashboard-catalog.js';
import type { RefreshOutcome, RefreshRun } from '../../application/ports/refresh-state-store.js';
import type { Visibility } from '../../domain/metadata.js';
import { isUuid } from '../../domain/ids.js';
import type { OwnerRef } from '../../domain/scope.js';
import { RUN_COLUMNS, runFromRow, type RunRow } from './refresh-run-rows.js';

interface PageRow {
  id: string;
  slug: string;
  name: string;
  tags: string[];
  visibility: string;
  refreshable: boolean;
  published_at: Date;
  run_outcome: string | null;
  run_started_at: Date | null;
  views: string;
}

/**
 * The page is cut first (filters and keyset on the owner's rows, in slug order, along the
 * `(owner_id, slug)` index) and only its rows get their last run and view total, each from its own
 * index: one statement whose cost follows the page size, not the owner's dashboard count. Whether a version
 * refreshes is its stored column (migration 1700000015700): the kind filter reads no spec.
 */
const PAGE_SQL = `
WITH page AS (
  SELECT d.id, d.slug, d.name, d.tags, d.visibility, v.created_at AS published_at,
         v.refreshable
    FROM dashboards d
    JOIN dashboard_versions v ON v.id = d.current_version_id
   WHERE d.owner_kind = $1 AND d.owner_id = $2
     AND ($3::text IS NULL OR d.slug > $3)
     AND ($4::text IS NULL OR strpos(d.slug, lower($4)) > 0 OR strpos(lower(d.name), lower($4)) > 0)
     AND ($5::text IS NULL OR $5 = ANY (d.tags))
     AND ($6::text IS NULL OR d.visibility = $6)
     AND ($7::boolean IS NULL OR v.refreshable = $7)
   ORDER BY d.slug
   LIMIT $8
)
SELECT page.*, run.outcome AS run_outcome, run.started_at AS run_started_at, COALESCE(seen.views, 0) AS views
  FROM page
  LEFT JOIN LATERAL (
    SELECT r.outcome, r.started_at FROM refresh_runs r WHERE r.dashboard_id = page.id ORDER BY r.started_at DESC LIMIT 1
  ) run ON true
  LEFT JOIN LATERAL (
    SELECT sum(w.views) AS views FROM dashboard_views_daily w WHERE w.dashboard_id = page.id AND w.day >= $9::date
  ) seen ON true
 ORDER BY page.slug`;

/** The dashboards pages' reads on PostgreSQL (and the embedded PGlite), plain parameterised SQL. */
export class TypeormDashboardCatalog implements DashboardCatalog {
  constructor(private readonly dataSource: DataSource) {}

  async page(owner: OwnerRef, query: CatalogQuery): Promise<CatalogRow[]> {
    const kind = query.kind === undefined ? null : query.kind === 'refreshable';
    const rows: PageRow[] = await this.dataSource.query(PAGE_SQL, [
      owner.kind,
      owner.id,
      query.afterSlug ?? null,
      query.search || null,
      query.tag ?? null,
      query.visibility ?? null,
      kind,
      query.limit,
      query.viewsFromDay,
    ]);
    return rows.map((r) => ({
      id: r.id,
      slug: r.slug,
      name: r.name,
      tags: r.tags,
      visibility: r.visibility as Visibility,
      kind: (r.refreshable ? 'refreshable' : 'static') as DashboardKind,
      publishedAt: r.published_at,
      lastRun: r.run_outcome && r.run_started_at ? { outcome: r.run_outcome as RefreshOutcome, startedAt: r.run_started_at } : null,
      views: Number(r.views),
    }));
  }

  async tags(owner: OwnerRef, limit: number): Promise<string[]> {
    const rows: Array<{ tag: string }> = await this.dataSource.query(
      `SELECT DISTINCT t.tag COLLATE "C" AS tag FROM dashboards d CROSS JOIN LATERAL unnest(d.tags) AS t(tag)
        WHERE d.owner_kind = $1 AND d.owner_id = $2 ORDER BY 1 LIMIT $3`,
      [owner.kind, owner.id, limit],
    );
    return rows.map((r) => r.tag);
  }

  async recentRuns(dashboardId: string, limit: number): Promise<RefreshRun[]> {
    if (!isUuid(dashboardId)) return [];
    const rows: RunRow[] = await this.dataSource.query(
      `SELECT ${RUN_COLUMNS} FROM refresh_runs WHERE dashboard_id = $1 ORDER BY started_at DESC LIMIT $2`,
      [dashboardId, limit],
    );
    return rows.map(runFromRow);
  }
}
