import { DomainError } from '../domain/errors.js';
import { ownerOf, type OwnerRef, type Target } from '../domain/scope.js';
import type { DashboardReads, DashboardRecord, DashboardStore, VersionOutline, VersionRecord, VersionSummary } from './ports/dashboard-store.js';

/** The spec's text for the slug-keyed readers, on workspace targets too. */
export const noDashboardInAccount = (slug: string) => new DomainError('not_found', `No dashboard named "${slug}" in your account`);

/** For changes: names the place the caller is acting on. */
export const noDashboardInTarget = (target: Target, slug: string) =>
  target.kind === 'workspace'
    ? new DomainError('not_found', `No dashboard named "${slug}" in that workspace`)
    : noDashboardInAccount(slug);

/**
 * Which dashboard a tool call is about. The types are checked at the tool edge; the slug's rules (and
 * what `workspace` means under the grant's lock) are applied by the use case, in its own order.
 */
export interface DashboardRef {
  slug: string;
  /** As the caller sent it: what it means, or whether it is refused, depends on the grant's lock. */
  workspace?: unknown;
}

/**
 * What a dashboard answer shows of its current version: the files, and whether it refreshes, which a version
 * as loaded says through its spec and a listing's version says outright (a listing reads no spec).
 */
export type ShownVersion = Pick<VersionRecord, 'files'> & ({ spec: unknown } | { refreshable: boolean });

/**
 * A dashboard as the dashboard use cases answer it: its record and the version its files and spec come
 * from (the current one). The shells present it (shells/presenters/dashboards/dashboard-presenters.ts).
 */
export interface CurrentDashboard {
  dashboard: DashboardRecord;
  current: ShownVersion;
}

export interface Loaded {
  dashboard: DashboardRecord;
  current: VersionRecord;
  /** Set when the slug asked for was an alias left by a rename. */
  viaAlias: string | null;
}

type Lookup = [reads: DashboardReads, target: Target, slug: string, notFound: DomainError, followAliases: boolean];

/** Finds a dashboard by its slug, or by an alias when `followAliases` (readers do, changes don't). */
export function loadDashboard(...lookup: Lookup): Promise<Loaded> {
  return withCurrent(lookup, (reads, dashboard) => reads.getVersion(dashboard.id, dashboard.currentVersionId));
}

/**
 * `loadDashboard` with the current version read without its spec (its summary), for a reader that shows the
 * version's files and whether it refreshes but not the spec, which may be megabytes.
 */
export function loadSummary(...lookup: Lookup): Promise<Omit<Loaded, 'current'> & { current: VersionSummary }> {
  return withCurrent(lookup, (reads, dashboard) => reads.getVersionSummary(dashboard.id, dashboard.currentVersionId));
}

/** `loadSummary` with the spec's parameters read in the same statement (get_dashboard lists them). */
export function loadOutline(...lookup: Lookup): Promise<Omit<Loaded, 'current'> & { current: VersionOutline }> {
  return withCurrent(lookup, (reads, dashboard) => reads.getVersionOutline(dashboard.id, dashboard.currentVersionId));
}

async function withCurrent<V>(
  lookup: Lookup,
  read: (reads: DashboardReads, dashboard: DashboardRecord) => Promise<V | null>,
): Promise<Omit<Loaded, 'current'> & { current: V }> {
  const { dashboard, viaAlias } = await findBySlug(...lookup);
  const current = await read(lookup[0], dashboard);
  if (!current) throw new Error(`dashboard ${dashboard.id} has no current version ${dashboard.currentVersionId}`);
  return { dashboard, current, viaAlias };
}

/** `loadDashboard` without reading the current version (and its spec), for a caller that needs only the record. */
export async function findBySlug(...[reads, target, slug, notFound, followAliases]: Lookup): Promise<Omit<Loaded, 'current'>> {
  const owner = ownerOf(target);
  let dashboard = await reads.findDashboard(owner, slug);
  let viaAlias: string | null = null;
  if (!dashboard && followAliases) {
    const alias = await reads.findAlias(owner, slug);
    if (alias) {
      dashboard = await reads.findDashboardById(alias.dashboardId);
      viaAlias = slug;
    }
  }
  if (!dashboard) throw notFound;
  return { dashboard, viaAlias };
}

const LIST_PAGE = 200;

/** Every dashboard of one owner, in slug order, read page by page along the keyset (operator views). */
export async function listAllDashboards(store: Pick<DashboardStore, 'list'>, owner: OwnerRef): Promise<DashboardRecord[]> {
  const all: DashboardRecord[] = [];
  for (;;) {
    const page = await store.list(owner, { afterSlug: all[all.length - 1]?.slug, limit: LIST_PAGE });
    all.push(...page);
    if (page.length < LIST_PAGE) return all;
  }
}
