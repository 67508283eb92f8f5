import type { Visibility } from '../../domain/metadata.js';
import type { OwnerRef } from '../../domain/scope.js';
import type { RefreshOutcome, RefreshRun } from './refresh-state-store.js';

export type DashboardKind = 'static' | 'refreshable';

export interface CatalogQuery {
  /** Keyset: only slugs after this one, in slug order (the list_dashboards cursor). */
  afterSlug?: string;
  limit: number;
  /** Case-insensitive substring of the name or the slug. */
  search?: string;
  /** Exact tag. */
  tag?: string;
  visibility?: Visibility;
  kind?: DashboardKind;
  /** Views are summed from this UTC day (`YYYY-MM-DD`, inclusive). */
  viewsFromDay: string;
}

/** One row of the owner's dashboards page: everything the list shows, in one read. */
export interface CatalogRow {
  id: string;
  slug: string;
  name: string;
  tags: string[];
  visibility: Visibility;
  kind: DashboardKind;
  /** When the current version was made (a publish or a restore). */
  publishedAt: Date;
  lastRun: { outcome: RefreshOutcome; startedAt: Date } | null;
  views: number;
}

export const DashboardCatalog = Symbol.for('DashboardCatalog');
/**
 * The read model of the web app's dashboards pages. Each call is one set-based read whatever the page
 * size, so the list stays fast for an owner with ten thousand dashboards.
 */
export interface DashboardCatalog {
  page(owner: OwnerRef, query: CatalogQuery): Promise<CatalogRow[]>;
  /** The owner's distinct tags, sorted, at most `limit`. */
  tags(owner: OwnerRef, limit: number): Promise<string[]>;
  /** The dashboard's latest refresh runs, newest first. */
  recentRuns(dashboardId: string, limit: number): Promise<RefreshRun[]>;
}
