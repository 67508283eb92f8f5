import type { CatalogQuery, CatalogRow, DashboardCatalog } from '../../application/ports/dashboard-catalog.js';
import type { DashboardStore } from '../../application/ports/dashboard-store.js';
import type { RefreshRun, RefreshStateStore } from '../../application/ports/refresh-state-store.js';
import type { ViewCounter } from '../../application/ports/view-counter.js';
import type { OwnerRef } from '../../domain/scope.js';

const isRefreshable = (spec: unknown): boolean => {
  const queries = spec !== null && typeof spec === 'object' ? (spec as { queries?: unknown }).queries : undefined;
  return queries !== null && typeof queries === 'object' && !Array.isArray(queries) && Object.keys(queries as object).length > 0;
};

const EVERYTHING = Number.MAX_SAFE_INTEGER;

/**
 * The dashboards pages' reads over the in-memory stores, for application tests. A row at a time is fine
 * here; the database adapter answers each call in one statement.
 */
export class MemoryDashboardCatalog implements DashboardCatalog {
  constructor(
    private readonly dashboards: DashboardStore,
    private readonly refresh: RefreshStateStore,
    private readonly views: ViewCounter,
  ) {}

  async page(owner: OwnerRef, query: CatalogQuery): Promise<CatalogRow[]> {
    const search = query.search?.toLowerCase();
    const rows: CatalogRow[] = [];
    for (const d of await this.dashboards.list(owner, { afterSlug: query.afterSlug, limit: EVERYTHING, tag: query.tag })) {
      if (rows.length === query.limit) break;
      if (search && !d.slug.includes(search) && !d.name.toLowerCase().includes(search)) continue;
      if (query.visibility && d.visibility !== query.visibility) continue;
      const current = await this.dashboards.getVersion(d.id, d.currentVersionId);
      if (!current) continue;
      const kind = isRefreshable(current.spec) ? 'refreshable' : 'static';
      if (query.kind && kind !== query.kind) continue;
      const last = await this.refresh.lastRun(d.id);
      const views = (await this.views.daily([d.id], query.viewsFromDay)).reduce((sum, day) => sum + day.views, 0);
      rows.push({
        id: d.id,
        slug: d.slug,
        name: d.name,
        tags: d.tags,
        visibility: d.visibility,
        kind,
        publishedAt: current.createdAt,
        lastRun: last ? { outcome: last.outcome, startedAt: last.startedAt } : null,
        views,
      });
    }
    return rows;
  }

  async tags(owner: OwnerRef, limit: number): Promise<string[]> {
    const all = new Set((await this.dashboards.list(owner, { limit: EVERYTHING })).flatMap((d) => d.tags));
    return [...all].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)).slice(0, limit);
  }

  async recentRuns(dashboardId: string, limit: number): Promise<RefreshRun[]> {
    return (await this.refresh.runsOf([dashboardId])).sort((a, b) => b.startedAt.getTime() - a.startedAt.getTime()).slice(0, limit);
  }
}
