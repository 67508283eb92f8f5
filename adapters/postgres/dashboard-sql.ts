/**
 * The dashboard store's hot statements as plain parameterised SQL: on a listing page or a publish the
 * query builder and entity hydration cost more than the query (docs/decisions/0032-listings-read-no-spec.md).
 * Rows come back through `pg`'s own type parsers (uuid/text as strings, timestamptz as Date, jsonb parsed,
 * text[] as arrays), the same values the entities carry.
 */
import type { OwnerRef } from '../../domain/scope.js';
import type {
  DashboardRecord,
  ListedDashboard,
  ListQuery,
  Manifest,
  PublishState,
  PublishWrite,
  StoredFile,
  VersionRecord,
  VersionSummary,
} from '../../application/ports/dashboard-store.js';

type Row = Record<string, unknown>;

const DASHBOARD_COLUMNS = `d.id, d.owner_kind, d.owner_id, d.slug, d.name, d.tags, d.chart, d.visibility, d.connection,
  d.current_version_id, d.created_by, d.created_at, d.updated_at`;

const VERSION_COLUMNS = `v.id AS v_id, v.seq AS v_seq, v.name AS v_name, v.created_at AS v_created_at,
  v.created_by AS v_created_by, v.files AS v_files, v.spec AS v_spec`;

/** What a listing shows of the current version: the stored `refreshable`, never the spec (migration 1700000015700). */
const LISTED_VERSION_COLUMNS = `v.id AS v_id, v.files AS v_files, v.refreshable AS v_refreshable`;

/**
 * One page of an owner's dashboards in slug order. With a tag it walks dashboard_tags' (owner, tag, slug)
 * key, so a rare tag costs what a first page costs; with `withCurrent` each row carries what a listing shows
 * of its current version.
 */
export function listSql(owner: OwnerRef, query: ListQuery, withCurrent: boolean): [string, unknown[]] {
  const params: unknown[] = [owner.id, owner.kind];
  const param = (value: unknown) => `$${params.push(value)}`;
  const tagged = query.tag !== undefined;
  const key = tagged ? 't.slug' : 'd.slug';
  const where = tagged ? [`t.owner_id = $1::uuid`, `t.tag = ${param(query.tag)}`, `d.owner_kind = $2`] : [`d.owner_id = $1::uuid`, `d.owner_kind = $2`];
  if (query.afterSlug !== undefined) where.push(`${key} > ${param(query.afterSlug)}`);
  if (query.slug !== undefined) where.push(`${key} = ${param(query.slug)}`);
  const from = tagged ? 'dashboard_tags t JOIN dashboards d ON d.id = t.dashboard_id' : 'dashboards d';
  const current = withCurrent ? 'LEFT JOIN dashboard_versions v ON v.id = d.current_version_id AND v.dashboard_id = d.id' : '';
  return [
    `SELECT ${DASHBOARD_COLUMNS}${withCurrent ? `, ${LISTED_VERSION_COLUMNS}` : ''}
     FROM ${from} ${current}
     WHERE ${where.join(' AND ')}
     ORDER BY ${key} LIMIT ${param(query.limit)}`,
    params,
  ];
}

const SUMMARY_COLUMNS = 'id, seq, name, created_at, created_by, files, spec IS NOT NULL AS has_spec, refreshable';

/** A dashboard's versions, newest first, without their specs: `spec IS NOT NULL` reads no spec. `$1` the dashboard. */
export const VERSION_SUMMARIES_SQL = `SELECT ${SUMMARY_COLUMNS} FROM dashboard_versions WHERE dashboard_id = $1::uuid ORDER BY seq DESC`;

/** One version without its spec. `$1` the version, `$2` its dashboard. */
export const VERSION_SUMMARY_SQL = `SELECT ${SUMMARY_COLUMNS} FROM dashboard_versions WHERE id = $1::uuid AND dashboard_id = $2::uuid`;

/** One version without its spec but with its parameters (`->` reads them in the database). `$1` the version, `$2` its dashboard. */
export const VERSION_OUTLINE_SQL = `SELECT ${SUMMARY_COLUMNS}, spec->'params' AS params FROM dashboard_versions WHERE id = $1::uuid AND dashboard_id = $2::uuid`;

export function toVersionSummary(row: Row, dashboardId: string): VersionSummary {
  return {
    id: row.id as string,
    dashboardId,
    seq: row.seq as number,
    name: row.name as string | null,
    createdAt: row.created_at as Date,
    createdBy: row.created_by as string,
    files: row.files as Manifest,
    kind: row.has_spec ? 'spec' : 'body',
    refreshable: row.refreshable as boolean,
  };
}

/**
 * The owner's versions counted per dashboard and UTC day, in the order the port promises: dashboards by slug,
 * then each one's days by their newest version. One statement over the versions' `dashboard_id` index, never
 * a read per dashboard, and no spec read.
 */
export function publishDaysSql(owner: OwnerRef): [string, unknown[]] {
  return [
    `SELECT v.dashboard_id, to_char(v.created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS count
     FROM dashboards d JOIN dashboard_versions v ON v.dashboard_id = d.id
     WHERE d.owner_id = $1::uuid AND d.owner_kind = $2
     GROUP BY d.slug, v.dashboard_id, day
     ORDER BY d.slug, max(v.seq) DESC`,
    [owner.id, owner.kind],
  ];
}

/**
 * A publish's read of its slug: the dashboard with its row version (xmin) and current version, and any
 * alias with the slug it redirects to; always one row, which the read below hands back as one json column
 * (`state`). `dashpub_publish` answers a miss with the same select, written out in
 * adapters/postgres/sql/dashpub-publish.sql: a change to these columns needs a migration that writes it again.
 * `ownerId`, `kind` and `slug` are the placeholders to read them from.
 */
function publishStateSelect(ownerId: string, kind: string, slug: string): string {
  return `SELECT ${DASHBOARD_COLUMNS}, d.xmin::text AS row_version, ${VERSION_COLUMNS},
       a.slug IS NOT NULL AS is_alias, ad.slug AS alias_of
     FROM (VALUES (1)) AS one (x)
     LEFT JOIN dashboards d ON d.owner_id = ${ownerId} AND d.owner_kind = ${kind} AND d.slug = ${slug}
     LEFT JOIN dashboard_versions v ON v.id = d.current_version_id AND v.dashboard_id = d.id
     LEFT JOIN dashboard_aliases a ON a.owner_id = ${ownerId} AND a.owner_kind = ${kind} AND a.slug = ${slug}
     LEFT JOIN dashboards ad ON ad.id = a.dashboard_id`;
}

/**
 * A publish's first round trip when it has nothing to go on: a plain read of the slug. One json column, not
 * the read's 23: `pg` takes every row description apart again on each call and builds a parser and a row
 * shape per column, which cost the server more than the statement cost the database
 * (docs/decisions/0036-publish-function.md).
 */
export function publishReadSql(owner: OwnerRef, slug: string): [string, unknown[]] {
  return [`SELECT to_json(s) AS state FROM (${publishStateSelect('$1::uuid', '$2', '$3')}) AS s`, [owner.id, owner.kind, slug]];
}

/**
 * The write: `dashpub_publish` (adapters/postgres/sql/dashpub-publish.sql) with the files as hashes, sizes and
 * one blob, so a single body goes out as it is, in binary; one row per hash. The function numbers the version
 * and prunes snapshots in SQL: that must agree with `nextVersionSeq` and `snapshotsToPrune` in
 * domain/versions.ts, which the dashboard store contract checks on every store. It answers the new version's number and the row's new version (`seq`,
 * `written_version`), or, when the slug was not as the caller expected, NULLs and the slug as the function
 * found it under the owner's lock (`state`, what `publishReadSql` answers), so the next attempt needs no
 * read of its own.
 */
export function publishWriteSql(owner: OwnerRef, slug: string, rowVersion: string | null, write: PublishWrite, files: StoredFile[], snapshotsKept: number): [string, unknown[]] {
  const unique = [...new Map(files.map((f) => [f.sha256, f])).values()];
  const buffers = unique.map((f) => Buffer.from(f.bytes.buffer, f.bytes.byteOffset, f.bytes.byteLength));
  const { dashboard: d, version: v } = write;
  return [
    `SELECT new_seq AS seq, new_row_version AS written_version, state
     FROM dashpub_publish($1, $2, $3, $4::xid, $5, $6, $7::text[], $8, $9, $10, $11, $12,
       $13, $14, $15, $16, $17::jsonb, $18::jsonb, $19, $20::text[], $21::integer[], $22::bytea)`,
    [
      owner.kind,
      owner.id,
      slug,
      write.isNew ? null : rowVersion,
      d.id,
      d.name,
      d.tags,
      d.chart ?? null,
      d.visibility,
      d.connection,
      d.createdBy,
      d.createdAt,
      d.updatedAt,
      v.id,
      v.createdBy,
      v.createdAt,
      JSON.stringify(v.files),
      v.spec === null || v.spec === undefined ? null : JSON.stringify(v.spec),
      snapshotsKept,
      unique.map((f) => f.sha256),
      buffers.map((b) => b.byteLength),
      buffers.length === 1 ? buffers[0] : Buffer.concat(buffers),
    ],
  ];
}

export function toListed(row: Row): ListedDashboard {
  return {
    dashboard: toDashboard(row),
    current: row.v_id == null ? null : { id: row.v_id as string, files: row.v_files as Manifest, refreshable: row.v_refreshable as boolean },
  };
}

/** The `state` column of the statements above. */
export function toPublishState(row: Row): { state: PublishState; rowVersion: string | null } {
  const dashboard = row.id == null ? null : toDashboard(row);
  return {
    state: {
      alias: row.is_alias ? { dashboardSlug: (row.alias_of as string | null) ?? null } : null,
      dashboard,
      current: dashboard && row.v_id != null ? toVersion(row, dashboard.id) : null,
    },
    rowVersion: (row.row_version as string | null) ?? null,
  };
}

function toDashboard(row: Row): DashboardRecord {
  return {
    id: row.id as string,
    owner: { kind: row.owner_kind as OwnerRef['kind'], id: row.owner_id as string },
    slug: row.slug as string,
    name: row.name as string,
    tags: row.tags as string[],
    chart: row.chart as string | null,
    visibility: row.visibility as DashboardRecord['visibility'],
    connection: row.connection as string,
    currentVersionId: row.current_version_id as string,
    createdBy: row.created_by as string,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
  };
}

function toVersion(row: Row, dashboardId: string): VersionRecord {
  return {
    id: row.v_id as string,
    dashboardId,
    seq: row.v_seq as number,
    name: row.v_name as string | null,
    createdAt: toDate(row.v_created_at),
    createdBy: row.v_created_by as string,
    files: row.v_files as VersionRecord['files'],
    spec: (row.v_spec as unknown) ?? null,
  };
}

/**
 * A timestamp column: a Date from `pg`'s parser, or ISO 8601 text inside a json column (a publish's
 * `state`), which makes the same Date: both keep milliseconds.
 */
function toDate(value: unknown): Date {
  return value instanceof Date ? value : new Date(value as string);
}
