import { parseConnectionRef } from './connection-ref.js';
import { parseDashboardSpec } from './dashboard-spec.js';
import { DomainError, invalid, typeName } from './errors.js';
import { parseMetadataPatch, type Visibility } from './metadata.js';
import { validateFilename, validateSlug } from './names.js';
import { AUTOMATIC_SNAPSHOTS_KEPT, NAMED_VERSIONS_KEPT, parseVersionName } from './versions.js';

/**
 * The largest file an archive may hold. Published files are capped at 5 MiB, but a spec's render
 * (index.html, data.json) is not, so the cap leaves room for those while keeping an import from
 * reading an unbounded file into memory.
 */
export const ARCHIVE_FILE_CAP_BYTES = 64 * 1024 * 1024;

/**
 * The manifest of a dashboard export archive (`dashpub dashboard export`), version 1: plain JSON, in
 * snake_case like every other answer the service gives. Files are referenced by their sha256 and
 * stored once each beside the manifest; how they are stored is the shell's business, not this module's.
 */
export const ARCHIVE_FORMAT = 'dashpub-export';
export const ARCHIVE_VERSION = 1;

export interface ArchivedFile {
  sha256: string;
  size: number;
}

export interface ArchivedVersion {
  name: string | null;
  created_at: string;
  /** Exactly one version of a dashboard is its current one. */
  current: boolean;
  /** filename → file. */
  files: Record<string, ArchivedFile>;
  /** The dashboard spec of a spec-mode version, else null. */
  spec: unknown | null;
}

export interface ArchivedSchedule {
  cron: string;
  timezone: string;
}

export interface ArchivedDashboard {
  slug: string;
  name: string;
  tags: string[];
  chart: string | null;
  visibility: Visibility;
  /** `self` or a warehouse connection id, kept as it was even where that id means nothing. */
  connection: string;
  created_at: string;
  updated_at: string;
  /** Old slugs that redirect to this dashboard. */
  aliases: string[];
  /** Oldest first: the order publishes were made in. */
  versions: ArchivedVersion[];
  refresh_schedule: ArchivedSchedule | null;
}

export interface ArchiveSource {
  kind: 'personal' | 'workspace';
  /** The handle or workspace slug the dashboards were exported from. */
  name: string;
}

export interface ArchiveManifest {
  format: typeof ARCHIVE_FORMAT;
  version: typeof ARCHIVE_VERSION;
  exported_at: string;
  source: ArchiveSource;
  dashboards: ArchivedDashboard[];
}

const SHA256_PATTERN = /^[0-9a-f]{64}$/;
export const isSha256 = (value: unknown): value is string => typeof value === 'string' && SHA256_PATTERN.test(value);

const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Runs a check and prefixes any refusal with where in the manifest it was found. */
function at<T>(where: string, check: () => T): T {
  try {
    return check();
  } catch (err) {
    if (err instanceof DomainError) throw new DomainError(err.code, `${where}: ${err.message}`);
    throw err;
  }
}

function object(value: unknown, what: string): Record<string, unknown> {
  if (!isPlainObject(value)) throw invalid(`${what} must be an object (got ${typeName(value)})`);
  return value;
}

function array(value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw invalid(`${what} must be an array (got ${typeName(value)})`);
  return value;
}

function timestamp(value: unknown, what: string): string {
  if (typeof value !== 'string' || Number.isNaN(Date.parse(value))) throw invalid(`${what} must be an ISO 8601 time (got ${JSON.stringify(value)})`);
  return new Date(value).toISOString();
}

/**
 * Checks a manifest completely against the rules publishing enforces (slugs, filenames, metadata,
 * connection shape, version names and retention, the spec cap), so an import can refuse the whole
 * archive before writing anything. Refusals name the dashboard and version they concern.
 */
export function parseArchiveManifest(input: unknown): ArchiveManifest {
  const root = object(input, 'the manifest');
  if (root.format !== ARCHIVE_FORMAT) throw invalid(`the manifest's format must be "${ARCHIVE_FORMAT}" (got ${JSON.stringify(root.format)})`);
  if (root.version !== ARCHIVE_VERSION) {
    throw invalid(`archive version ${JSON.stringify(root.version)} is not supported: this dashpub reads version ${ARCHIVE_VERSION}`);
  }
  const source = object(root.source, 'source');
  if ((source.kind !== 'personal' && source.kind !== 'workspace') || typeof source.name !== 'string') {
    throw invalid('source must be { "kind": "personal" | "workspace", "name": "<handle or slug>" }');
  }
  const dashboards = array(root.dashboards, 'dashboards').map((value, i) =>
    at(`dashboard ${isPlainObject(value) && typeof value.slug === 'string' ? JSON.stringify(value.slug) : `#${i + 1}`}`, () => parseDashboard(value)),
  );
  refuseSharedSlugs(dashboards);
  refuseInconsistentFiles(dashboards);
  return {
    format: ARCHIVE_FORMAT,
    version: ARCHIVE_VERSION,
    exported_at: timestamp(root.exported_at, 'exported_at'),
    source: { kind: source.kind, name: source.name },
    dashboards,
  };
}

function parseDashboard(value: unknown): ArchivedDashboard {
  const d = object(value, 'the entry');
  const slug = validateSlug(d.slug);
  const metadata = parseMetadataPatch({ name: d.name, tags: d.tags, chart: d.chart, visibility: d.visibility });
  if (metadata.name === undefined) throw invalid('name must be a non-empty string');
  if (metadata.visibility === undefined) throw invalid('visibility must be "public" or "private"');
  if (typeof d.connection !== 'string') throw invalid('connection must be "self" or a connection id');
  parseConnectionRef(d.connection);
  const aliases = array(d.aliases ?? [], 'aliases').map((alias, i) => validateSlug(alias, `aliases[${i}]`));
  const versions = array(d.versions, 'versions').map((v, i) => at(`version ${i + 1}`, () => parseVersion(v)));
  checkVersions(versions);
  return {
    slug,
    name: metadata.name,
    tags: metadata.tags ?? [],
    chart: metadata.chart ?? null,
    visibility: metadata.visibility,
    connection: d.connection,
    created_at: timestamp(d.created_at, 'created_at'),
    updated_at: timestamp(d.updated_at, 'updated_at'),
    aliases,
    versions,
    refresh_schedule: parseScheduleShape(d.refresh_schedule),
  };
}

function parseVersion(value: unknown): ArchivedVersion {
  const v = object(value, 'the version');
  const name = v.name === undefined ? null : parseVersionName(v.name);
  if (typeof v.current !== 'boolean') throw invalid('current must be true or false');
  const files: Record<string, ArchivedFile> = {};
  const entries = Object.entries(object(v.files, 'files'));
  if (entries.length === 0) throw invalid('files must name at least one file');
  for (const [filename, entry] of entries) {
    at(`file "${filename}"`, () => {
      validateFilename(filename);
      const file = object(entry, 'the entry');
      if (!isSha256(file.sha256)) throw invalid('sha256 must be 64 lowercase hex digits');
      if (!Number.isSafeInteger(file.size) || (file.size as number) < 0) throw invalid('size must be a whole number of bytes');
      if ((file.size as number) > ARCHIVE_FILE_CAP_BYTES) {
        throw invalid(`size ${file.size as number} is over the ${ARCHIVE_FILE_CAP_BYTES}-byte limit for one file of an archive`);
      }
      files[filename] = { sha256: file.sha256, size: file.size as number };
    });
  }
  return { name, created_at: timestamp(v.created_at, 'created_at'), current: v.current, files, spec: checkSpec(v.spec) };
}

/** One current version, and no more versions than retention keeps (a real export never has more). */
/**
 * Checked with the same strict parse (and 5 MiB cap) a spec-mode publish applies, since refreshes read
 * this spec again; kept as written so a round trip changes nothing.
 */
function checkSpec(value: unknown): unknown | null {
  if (value === undefined || value === null) return null;
  if (!isPlainObject(value)) throw invalid(`spec must be an object or null (got ${typeName(value)})`);
  at('spec', () => parseDashboardSpec(value));
  return value;
}

function checkVersions(versions: ArchivedVersion[]): void {
  if (versions.length === 0) throw invalid('versions must hold at least one version');
  const current = versions.filter((v) => v.current).length;
  if (current !== 1) throw invalid(`exactly one version must be current (got ${current})`);
  const named = versions.filter((v) => v.name !== null).length;
  if (named > NAMED_VERSIONS_KEPT) throw invalid(`${named} named versions, more than the ${NAMED_VERSIONS_KEPT} a dashboard keeps`);
  const automatic = versions.filter((v) => v.name === null && !v.current).length;
  if (automatic > AUTOMATIC_SNAPSHOTS_KEPT) {
    throw invalid(`${automatic} unnamed snapshots, more than the ${AUTOMATIC_SNAPSHOTS_KEPT} a dashboard keeps`);
  }
}

/** The shape only; the cron expression and time zone are checked where the cron library lives. */
function parseScheduleShape(value: unknown): ArchivedSchedule | null {
  if (value === undefined || value === null) return null;
  const s = object(value, 'refresh_schedule');
  if (typeof s.cron !== 'string' || typeof s.timezone !== 'string') throw invalid('refresh_schedule must be { "cron": "<5 fields>", "timezone": "<IANA zone>" }');
  return { cron: s.cron, timezone: s.timezone };
}

/** Slugs and aliases share one namespace per owner, so no two entries may claim the same one. */
function refuseSharedSlugs(dashboards: ArchivedDashboard[]): void {
  const claimedBy = new Map<string, string>();
  for (const d of dashboards) {
    for (const slug of [d.slug, ...d.aliases]) {
      const other = claimedBy.get(slug);
      if (other !== undefined) {
        throw invalid(`dashboard "${d.slug}": slug "${slug}" is also claimed by ${other === d.slug ? 'itself' : `dashboard "${other}"`}`);
      }
      claimedBy.set(slug, d.slug);
    }
  }
}

function refuseInconsistentFiles(dashboards: ArchivedDashboard[]): void {
  const sizes = new Map<string, number>();
  for (const { where, file } of fileReferences(dashboards)) {
    const known = sizes.get(file.sha256);
    if (known !== undefined && known !== file.size) throw invalid(`${where}: file ${file.sha256} is listed with two sizes (${known} and ${file.size})`);
    sizes.set(file.sha256, file.size);
  }
}

export interface FileReference {
  /** `dashboard "sales", version 2, "index.html"`: where a refusal should point. */
  where: string;
  dashboardSlug: string;
  file: ArchivedFile;
}

/** Every file reference in the manifest, in manifest order. */
export function* fileReferences(dashboards: readonly ArchivedDashboard[]): Generator<FileReference> {
  for (const d of dashboards) {
    for (const [i, version] of d.versions.entries()) {
      for (const [filename, file] of Object.entries(version.files)) {
        yield { where: `dashboard "${d.slug}", version ${i + 1}, "${filename}"`, dashboardSlug: d.slug, file };
      }
    }
  }
}

/** The distinct files of a set of dashboards, each with its first reference. */
export function distinctFiles(dashboards: readonly ArchivedDashboard[]): Map<string, FileReference> {
  const files = new Map<string, FileReference>();
  for (const reference of fileReferences(dashboards)) if (!files.has(reference.file.sha256)) files.set(reference.file.sha256, reference);
  return files;
}
