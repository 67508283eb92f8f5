import type { DashboardRecord, Manifest, VersionRecord } from '../ports/dashboard-store.js';
import type { Settings } from '../ports/settings.js';
import { canonicalUrl } from '../../domain/urls.js';
import { subdomainOf, type Target } from '../../domain/scope.js';

export interface FileView {
  filename: string;
  size: number;
  content_type: string;
  url: string;
}

/** The answer shape every dashboard tool shares; snake_case because it goes to clients as JSON. */
export interface DashboardView {
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
  files: FileView[];
  refreshable: boolean;
  created_at: string;
  updated_at: string;
}

export interface VersionView {
  version_id: string;
  seq: number;
  name: string | null;
  created_at: string;
  current: boolean;
  files: Array<{ filename: string; size: number }>;
  kind: 'body' | 'spec';
}

export function fileViews(settings: Settings, target: Target, slug: string, files: Manifest): FileView[] {
  return Object.entries(files)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([filename, entry]) => ({
      filename,
      size: entry.size,
      content_type: entry.contentType,
      url: canonicalUrl(settings, subdomainOf(target), slug, filename),
    }));
}

export function dashboardView(settings: Settings, target: Target, dashboard: DashboardRecord, current: Pick<VersionRecord, 'files' | 'spec'>): DashboardView {
  return {
    slug: dashboard.slug,
    name: dashboard.name,
    url: canonicalUrl(settings, subdomainOf(target), dashboard.slug),
    owner: subdomainOf(target),
    workspace: target.kind === 'workspace' ? target.slug : null,
    visibility: dashboard.visibility,
    tags: dashboard.tags,
    chart: dashboard.chart,
    connection: dashboard.connection,
    current_version_id: dashboard.currentVersionId,
    files: fileViews(settings, target, dashboard.slug, current.files),
    refreshable: isRefreshableSpec(current.spec),
    created_at: dashboard.createdAt.toISOString(),
    updated_at: dashboard.updatedAt.toISOString(),
  };
}

export function versionView(version: VersionRecord, currentVersionId: string): VersionView {
  return {
    version_id: version.id,
    seq: version.seq,
    name: version.name,
    created_at: version.createdAt.toISOString(),
    current: version.id === currentVersionId,
    files: Object.entries(version.files)
      .sort(([a], [b]) => a.localeCompare(b))
      .map(([filename, entry]) => ({ filename, size: entry.size })),
    kind: version.spec === null ? 'body' : 'spec',
  };
}

function isRefreshableSpec(spec: unknown): boolean {
  if (spec === null || typeof spec !== 'object') return false;
  const queries = (spec as { queries?: unknown }).queries;
  return queries !== null && typeof queries === 'object' && Object.keys(queries).length > 0;
}
