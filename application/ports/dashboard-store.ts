import type { OwnerRef } from '../../domain/scope.js';
import type { Visibility } from '../../domain/metadata.js';

export interface FileEntry {
  sha256: string;
  size: number;
  contentType: string;
}

/** filename → content-addressed file. */
export type Manifest = Record<string, FileEntry>;

export interface DashboardRecord {
  id: string;
  owner: OwnerRef;
  slug: string;
  name: string;
  tags: string[];
  chart: string | null;
  visibility: Visibility;
  /** `self` or a warehouse connection id. */
  connection: string;
  currentVersionId: string;
  createdBy: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface VersionRecord {
  id: string;
  dashboardId: string;
  /** Strictly increasing per dashboard: the order publishes were made in. */
  seq: number;
  name: string | null;
  createdAt: Date;
  createdBy: string;
  files: Manifest;
  /** The dashboard spec for spec-mode versions, else null. */
  spec: unknown | null;
}

/**
 * A version without its spec, as lists and answers show it: `kind` says whether it has one, `refreshable`
 * whether that spec has queries (`isRefreshableSpec`, stored by migration 1700000015700).
 */
export interface VersionSummary extends Omit<VersionRecord, 'spec'> {
  kind: 'body' | 'spec';
  refreshable: boolean;
}

/** A version summary with the spec's `params` as stored (null for a body version or a spec without them). */
export interface VersionOutline extends VersionSummary {
  params: unknown;
}

export interface AliasRecord {
  owner: OwnerRef;
  slug: string;
  dashboardId: string;
}

export interface ListQuery {
  /** Keyset: only slugs after this one, in slug order. */
  afterSlug?: string;
  limit: number;
  tag?: string;
  slug?: string;
}

/**
 * What a listing shows of a dashboard's current version: its files, and whether its spec has queries
 * (`isRefreshableSpec`). Not the spec itself, which may be megabytes (docs/decisions/0032-listings-read-no-spec.md).
 */
export interface ListedVersion {
  id: string;
  files: Manifest;
  refreshable: boolean;
}

/** A dashboard of a listing with its current version (null only if that version is missing). */
export interface ListedDashboard {
  dashboard: DashboardRecord;
  current: ListedVersion | null;
}

/**
 * File bytes a publish stores, by content. The bytes are the caller's only until `publish` settles (a large
 * upload's are a view of a request buffer the MCP endpoint lends again after): a store that keeps them
 * beyond that copies them, as the in-memory one does.
 */
export interface StoredFile {
  sha256: string;
  bytes: Uint8Array;
}

/** A publish's slug, read in one go. */
export interface PublishState {
  /** Set when the slug is an alias left by a rename: the slug of the dashboard it redirects to (null if gone). */
  alias: { dashboardSlug: string | null } | null;
  dashboard: DashboardRecord | null;
  /** The dashboard's current version. */
  current: VersionRecord | null;
}

export interface PublishWrite {
  /** The dashboard as it is to be: a new id when new, its currentVersionId the new version's id. */
  dashboard: DashboardRecord;
  isNew: boolean;
  /** The new current version; the store numbers it after the dashboard's newest. */
  version: Omit<VersionRecord, 'seq'>;
}

export interface PublishDecision<T> {
  /** null writes nothing (a dry run). */
  write: PublishWrite | null;
  result: T;
}

/** How many versions of one dashboard were published on one UTC day (`YYYY-MM-DD`). */
export interface PublishDay {
  dashboardId: string;
  day: string;
  count: number;
}

export interface DashboardReads {
  findDashboard(owner: OwnerRef, slug: string): Promise<DashboardRecord | null>;
  findDashboardById(id: string): Promise<DashboardRecord | null>;
  findAlias(owner: OwnerRef, slug: string): Promise<AliasRecord | null>;
  /** The aliases that redirect to one dashboard, in slug order. */
  listAliases(dashboardId: string): Promise<AliasRecord[]>;
  getVersion(dashboardId: string, versionId: string): Promise<VersionRecord | null>;
  /** One version without its spec (what the host serves from, what a dashboard's answer shows); null as `getVersion`. */
  getVersionSummary(dashboardId: string, versionId: string): Promise<VersionSummary | null>;
  /** `getVersionSummary` with the spec's parameters, in the same read: what get_dashboard shows. */
  getVersionOutline(dashboardId: string, versionId: string): Promise<VersionOutline | null>;
  /** All versions of the dashboard, the current one included, newest (highest seq) first. */
  listVersions(dashboardId: string): Promise<VersionRecord[]>;
  getFile(sha256: string): Promise<Uint8Array | null>;
}

export interface DashboardWrites extends DashboardReads {
  insertDashboard(record: DashboardRecord): Promise<void>;
  updateDashboard(id: string, changes: Partial<Omit<DashboardRecord, 'id' | 'owner' | 'createdAt' | 'createdBy'>>): Promise<void>;
  /** Removes the dashboard with its versions and aliases. */
  deleteDashboard(id: string): Promise<void>;
  insertVersion(record: VersionRecord): Promise<void>;
  setVersionName(versionId: string, name: string | null): Promise<void>;
  deleteVersions(versionIds: string[]): Promise<void>;
  /** Idempotent: storing the same bytes twice keeps one copy. */
  putFile(sha256: string, bytes: Uint8Array): Promise<void>;
  insertAlias(alias: AliasRecord): Promise<void>;
  deleteAlias(owner: OwnerRef, slug: string): Promise<void>;
  /** Re-points every alias of one dashboard at another (collapses rename chains to one hop). */
  moveAliases(fromDashboardId: string, toDashboardId: string): Promise<void>;
}

export const DashboardStore = Symbol.for('DashboardStore');
export interface DashboardStore extends DashboardReads {
  /**
   * Runs `work` in one transaction that holds the owner's write lock, so every change to one owner's
   * dashboards (slug namespace included) serializes and either all of it lands or none.
   */
  transaction<T>(owner: OwnerRef, work: (tx: DashboardWrites) => Promise<T>): Promise<T>;
  list(owner: OwnerRef, query: ListQuery): Promise<DashboardRecord[]>;
  /** `listVersions` without the specs, which may be megabytes each (list_dashboard_versions shows none). */
  listVersionSummaries(dashboardId: string): Promise<VersionSummary[]>;
  /**
   * The owner's versions counted per dashboard and UTC day, in one read (the `self` connection's `publishes`):
   * dashboards in slug order, each one's days from the one of its newest version back.
   */
  publishDays(owner: OwnerRef): Promise<PublishDay[]>;
  /** The same listing, each dashboard with what a listing shows of its current version, read together. */
  listWithCurrent(owner: OwnerRef, query: ListQuery): Promise<ListedDashboard[]>;
  /**
   * One publish to one slug: reads the slug and applies `decide`'s write as if the read had been made
   * under the owner's write lock: `files` stored by content, a new current version numbered after the
   * newest, the dashboard row, and the prune of unnamed snapshots beyond the retention rule, all or
   * nothing (nothing when `decide` throws or writes nothing). `decide` may run again when the slug changed
   * meanwhile, so it must have no side effects.
   */
  publish<T>(owner: OwnerRef, slug: string, files: StoredFile[], decide: (state: PublishState) => PublishDecision<T>): Promise<T>;
}
