import type { SpecParam } from '../../../domain/spec-params.js';
import type { DashboardRecord, Manifest, VersionRecord, VersionSummary } from '../../../application/ports/dashboard-store.js';
import type { DashboardPage } from '../../../application/dashboards/list-dashboards.js';
import type { DashboardFound } from '../../../application/dashboards/get-dashboard.js';
import type { ShownVersion } from '../../../application/dashboard-lookup.js';
import type { VersionFound, VersionList, VersionRestored } from '../../../application/dashboards/dashboard-versions.js';
import type { Renamed } from '../../../application/dashboards/rename-dashboard.js';
import type { Updated } from '../../../application/dashboards/update-dashboard.js';
import type { Deleted } from '../../../application/dashboards/delete-dashboard.js';
import type { PublishResult } from '../../../application/dashboards/publish-dashboard.js';
import { isRefreshableSpec } from '../../../domain/dashboard-spec.js';
import { subdomainOf, type Target } from '../../../domain/scope.js';
import { canonicalUrl, type UrlSettings } from '../../../domain/urls.js';

/*
 * The dashboard tools' wire shapes, made from what their use cases return (records, dates, the target):
 * snake_case keys, ISO times, canonical URLs. The key order is the wire format (answers are compared byte
 * for byte), so keep it. The web app's dashboards pages and the resource listing present with these too.
 */

export interface FileJson {
  filename: string;
  size: number;
  content_type: string;
  url: string;
}

/** The answer shape every dashboard tool shares. */
export interface DashboardJson {
  slug: string;
  name: string;
  url: string;
  owner: string;
  workspace: string | null;
  visibility: string;
  tags: string[];
  chart: string | null;
  connection: string;
  current_version_id: string;
  files: FileJson[];
  refreshable: boolean;
  created_at: string;
  updated_at: string;
}

export interface VersionJson {
  version_id: string;
  seq: number;
  name: string | null;
  created_at: string;
  current: boolean;
  files: Array<{ filename: string; size: number }>;
  kind: 'body' | 'spec';
}

/** The dashboard's canonical URL (or one file's). */
export const dashboardUrl = (urls: UrlSettings, target: Target, slug: string, filename?: string) =>
  canonicalUrl(urls, subdomainOf(target), slug, filename);

/** A manifest's files in filename order, each with its own URL. */
export function filesJson(urls: UrlSettings, target: Target, slug: string, files: Manifest): FileJson[] {
  return Object.entries(files)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([filename, entry]) => ({
      filename,
      size: entry.size,
      content_type: entry.contentType,
      url: dashboardUrl(urls, target, slug, filename),
    }));
}

export function dashboardJson(urls: UrlSettings, target: Target, dashboard: DashboardRecord, current: ShownVersion): DashboardJson {
  return {
    slug: dashboard.slug,
    name: dashboard.name,
    url: dashboardUrl(urls, target, dashboard.slug),
    owner: subdomainOf(target),
    workspace: target.kind === 'workspace' ? target.slug : null,
    visibility: dashboard.visibility,
    tags: dashboard.tags,
    chart: dashboard.chart,
    connection: dashboard.connection,
    current_version_id: dashboard.currentVersionId,
    files: filesJson(urls, target, dashboard.slug, current.files),
    refreshable: 'refreshable' in current ? current.refreshable : isRefreshableSpec(current.spec),
    created_at: dashboard.createdAt.toISOString(),
    updated_at: dashboard.updatedAt.toISOString(),
  };
}

/** A version as the versions tools and pages show it; a list's versions come without their specs (`kind`). */
export function versionJson(version: VersionRecord | VersionSummary, currentVersionId: string): VersionJson {
  return {
    version_id: version.id,
    seq: version.seq,
    name: version.name,
    created_at: version.createdAt.toISOString(),
    current: version.id === currentVersionId,
    files: Object.entries(version.files)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([filename, entry]) => ({ filename, size: entry.size })),
    kind: 'kind' in version ? version.kind : version.spec === null ? 'body' : 'spec',
  };
}

/** publish_dashboard (also its structuredContent). */
export const publishJson = (urls: UrlSettings, r: PublishResult) => ({
  mode: r.mode,
  dry_run: r.dryRun,
  created: r.created,
  version_id: r.published?.version.id ?? null,
  path: r.path,
  bytes: r.bytes,
  dashboard: r.published ? dashboardJson(urls, r.target, r.published.dashboard, r.published.version) : null,
  url: dashboardUrl(urls, r.target, r.slug),
  warnings: r.warnings,
  ...(r.summary ? { summary: r.summary } : {}),
});

/** update_dashboard. */
export const updatedJson = (urls: UrlSettings, r: Updated) => ({
  dashboard: dashboardJson(urls, r.target, r.dashboard, r.current),
  changed: r.changed,
  warnings: r.warnings,
});

/** rename_dashboard. */
export const renamedJson = (urls: UrlSettings, r: Renamed) => ({
  dashboard: dashboardJson(urls, r.target, r.dashboard, r.current),
  old_slug: r.oldSlug,
  old_url: dashboardUrl(urls, r.target, r.oldSlug),
});

/** delete_dashboard. */
export const deletedJson = (urls: UrlSettings, r: Deleted) => ({
  slug: r.slug,
  url: dashboardUrl(urls, r.target, r.slug),
  versions_deleted: r.versionsDeleted,
});

/** list_dashboards (also its structuredContent). */
export const pageJson = (urls: UrlSettings, page: DashboardPage) => ({
  count: page.dashboards.length,
  dashboards: page.dashboards.map((d) => dashboardJson(urls, page.target, d.dashboard, d.current)),
  next_cursor: page.nextCursor,
});

/** get_dashboard. */
export const foundJson = (urls: UrlSettings, r: DashboardFound) => ({
  dashboard: dashboardJson(urls, r.target, r.dashboard, r.current),
  alias_of: r.aliasOf,
  body: r.body,
  // Only when asked for, so an answer without the flag stays byte for byte what it was.
  ...(r.summary !== undefined ? { summary: r.summary } : {}),
  ...(r.params.length > 0 ? { params: r.params.map(paramJson) } : {}),
});

/** A spec parameter as get_dashboard lists it: its declaration, the default included. */
const paramJson = (p: SpecParam) => ({
  id: p.id,
  type: p.type,
  label: p.label ?? null,
  default: p.default ?? null,
  required: p.required ?? false,
  ...(p.options === undefined ? {} : { options: p.options }),
  ...(p.min === undefined ? {} : { min: p.min }),
  ...(p.max === undefined ? {} : { max: p.max }),
  ...(p.pattern === undefined ? {} : { pattern: p.pattern }),
});

/** list_dashboard_versions. */
export const versionListJson = (urls: UrlSettings, r: VersionList) => ({
  slug: r.dashboard.slug,
  url: dashboardUrl(urls, r.target, r.dashboard.slug),
  current_version_id: r.dashboard.currentVersionId,
  count: r.versions.length,
  versions: r.versions.map((v) => versionJson(v, r.dashboard.currentVersionId)),
});

/** get_dashboard_version. */
export const versionFoundJson = (urls: UrlSettings, r: VersionFound) => ({
  slug: r.dashboard.slug,
  url: dashboardUrl(urls, r.target, r.dashboard.slug),
  version: versionJson(r.version, r.dashboard.currentVersionId),
  body: r.body,
});

/** update_dashboard_version. */
export const versionNamedJson = (urls: UrlSettings, r: Omit<VersionFound, 'body'>) => ({
  slug: r.dashboard.slug,
  url: dashboardUrl(urls, r.target, r.dashboard.slug),
  version: versionJson(r.version, r.dashboard.currentVersionId),
});

/** restore_dashboard_version. */
export const restoredJson = (urls: UrlSettings, r: VersionRestored) => ({
  dashboard: dashboardJson(urls, r.target, r.dashboard, r.current),
  restored_from: r.restoredFrom,
  version_id: r.current.id,
});
