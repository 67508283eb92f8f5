import { inject, injectable } from 'inversify';
import { DataSource, In, QueryFailedError, type EntityManager } from 'typeorm';
import { DomainError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import { AUTOMATIC_SNAPSHOTS_KEPT } from '../../domain/versions.js';
import { FILE_TOUCH_AGE_SECONDS } from '../../application/ports/file-sweeper.js';
import type { OwnerRef } from '../../domain/scope.js';
import type {
  AliasRecord,
  DashboardReads,
  DashboardRecord,
  DashboardStore,
  DashboardWrites,
  ListedDashboard,
  ListQuery,
  PublishDay,
  PublishDecision,
  PublishState,
  PublishWrite,
  StoredFile,
  VersionOutline,
  VersionRecord,
  VersionSummary,
} from '../../application/ports/dashboard-store.js';
import {
  listSql,
  publishDaysSql,
  publishReadSql,
  publishWriteSql,
  toListed,
  toPublishState,
  toVersionSummary,
  VERSION_OUTLINE_SQL,
  VERSION_SUMMARIES_SQL,
  VERSION_SUMMARY_SQL,
} from './dashboard-sql.js';
import { DashboardAliasEntity } from './entities/dashboard-alias.js';
import { FileEntity } from './entities/dashboard-file.js';
import { DashboardEntity } from './entities/dashboard-record.js';
import { DashboardVersionEntity } from './entities/dashboard-version.js';
import { NamedStatements } from './named-statements.js';
import { PublishGuesses, type Guess } from './publish-guesses.js';
import pg from 'pg';

const toDashboard = (row: DashboardEntity): DashboardRecord => ({
  id: row.id,
  owner: { kind: row.ownerKind, id: row.ownerId },
  slug: row.slug,
  name: row.name,
  tags: row.tags,
  chart: row.chart,
  visibility: row.visibility,
  connection: row.connection,
  currentVersionId: row.currentVersionId,
  createdBy: row.createdBy,
  createdAt: row.createdAt,
  updatedAt: row.updatedAt,
});

const toVersion = (row: DashboardVersionEntity): VersionRecord => ({
  id: row.id,
  dashboardId: row.dashboardId,
  seq: row.seq,
  name: row.name,
  createdAt: row.createdAt,
  createdBy: row.createdBy,
  files: row.files,
  spec: row.spec ?? null,
});

const toAlias = (row: DashboardAliasEntity): AliasRecord => ({
  owner: { kind: row.ownerKind, id: row.ownerId },
  slug: row.slug,
  dashboardId: row.dashboardId,
});

/** Tries of a publish without holding the owner's lock between its read and its write (see `publish`). */
const UNLOCKED_ATTEMPTS = 2;

/** Off only for the publish bench's A/B (`--off guesses` sets DASHPUB_AB_OFF): every publish reads first (docs/decisions/0037-publish-guesses.md). */
const GUESSES = !(process.env.DASHPUB_AB_OFF ?? '').split(',').includes('guesses');

const UPDATABLE = new Set(['slug', 'name', 'tags', 'chart', 'visibility', 'connection', 'currentVersionId', 'updatedAt']);

class TypeormReads implements DashboardReads {
  constructor(protected readonly manager: EntityManager) {}

  async findDashboard(owner: OwnerRef, slug: string): Promise<DashboardRecord | null> {
    const row = await this.dashboards.findOneBy({ ownerKind: owner.kind, ownerId: owner.id, slug });
    return row ? toDashboard(row) : null;
  }

  async findDashboardById(id: string): Promise<DashboardRecord | null> {
    if (!isUuid(id)) return null;
    const row = await this.dashboards.findOneBy({ id });
    return row ? toDashboard(row) : null;
  }

  async findAlias(owner: OwnerRef, slug: string): Promise<AliasRecord | null> {
    const row = await this.aliases.findOneBy({ ownerKind: owner.kind, ownerId: owner.id, slug });
    return row ? toAlias(row) : null;
  }

  async listAliases(dashboardId: string): Promise<AliasRecord[]> {
    if (!isUuid(dashboardId)) return [];
    return (await this.aliases.find({ where: { dashboardId }, order: { slug: 'ASC' } })).map(toAlias);
  }

  async getVersion(dashboardId: string, versionId: string): Promise<VersionRecord | null> {
    if (!isUuid(dashboardId) || !isUuid(versionId)) return null;
    const row = await this.versions.findOneBy({ id: versionId, dashboardId });
    return row ? toVersion(row) : null;
  }

  async getVersionSummary(dashboardId: string, versionId: string): Promise<VersionSummary | null> {
    if (!isUuid(dashboardId) || !isUuid(versionId)) return null;
    const [row] = await this.manager.query<Record<string, unknown>[]>(VERSION_SUMMARY_SQL, [versionId, dashboardId]);
    return row ? toVersionSummary(row, dashboardId) : null;
  }

  async getVersionOutline(dashboardId: string, versionId: string): Promise<VersionOutline | null> {
    if (!isUuid(dashboardId) || !isUuid(versionId)) return null;
    const [row] = await this.manager.query<Record<string, unknown>[]>(VERSION_OUTLINE_SQL, [versionId, dashboardId]);
    return row ? { ...toVersionSummary(row, dashboardId), params: row.params ?? null } : null;
  }

  async listVersions(dashboardId: string): Promise<VersionRecord[]> {
    if (!isUuid(dashboardId)) return [];
    return (await this.versions.find({ where: { dashboardId }, order: { seq: 'DESC' } })).map(toVersion);
  }

  async getFile(sha256: string): Promise<Uint8Array | null> {
    const row = await this.manager.getRepository(FileEntity).findOne({ where: { sha256 }, select: { sha256: true, bytes: true } });
    return row ? new Uint8Array(row.bytes.buffer, row.bytes.byteOffset, row.bytes.byteLength) : null;
  }

  protected get dashboards() {
    return this.manager.getRepository(DashboardEntity);
  }

  protected get versions() {
    return this.manager.getRepository(DashboardVersionEntity);
  }

  protected get aliases() {
    return this.manager.getRepository(DashboardAliasEntity);
  }
}

/** The writes of one transaction, on that transaction's EntityManager only. */
class TypeormWrites extends TypeormReads implements DashboardWrites {
  async insertDashboard(record: DashboardRecord): Promise<void> {
    await refusingConflicts(() => this.dashboards.insert({ ...columnsOf(record), id: record.id, ownerKind: record.owner.kind, ownerId: record.owner.id }));
  }

  async updateDashboard(id: string, changes: Partial<Omit<DashboardRecord, 'id' | 'owner' | 'createdAt' | 'createdBy'>>): Promise<void> {
    const defined = Object.fromEntries(Object.entries(changes).filter(([key, value]) => value !== undefined && UPDATABLE.has(key)));
    if (Object.keys(defined).length === 0 || !isUuid(id)) return;
    await refusingConflicts(() => this.dashboards.update({ id }, defined));
  }

  async deleteDashboard(id: string): Promise<void> {
    // Versions and aliases go with it (ON DELETE CASCADE).
    if (isUuid(id)) await this.dashboards.delete({ id });
  }

  async insertVersion(record: VersionRecord): Promise<void> {
    await refusingConflicts(() =>
      this.manager.query(
        `INSERT INTO dashboard_versions (id, dashboard_id, seq, name, created_at, created_by, files, spec)
         VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8::jsonb)`,
        [
          record.id,
          record.dashboardId,
          record.seq,
          record.name,
          record.createdAt,
          record.createdBy,
          JSON.stringify(record.files),
          record.spec === null || record.spec === undefined ? null : JSON.stringify(record.spec),
        ],
      ),
    );
  }

  async setVersionName(versionId: string, name: string | null): Promise<void> {
    if (isUuid(versionId)) await this.versions.update({ id: versionId }, { name });
  }

  async deleteVersions(versionIds: string[]): Promise<void> {
    const ids = versionIds.filter(isUuid);
    if (ids.length > 0) await this.versions.delete({ id: In(ids) });
  }

  async putFile(sha256: string, bytes: Uint8Array): Promise<void> {
    // Bytes already stored with an old mark are marked anew, which locks the row until commit and keeps
    // the file sweep off bytes this transaction is about to reference again (see typeorm-file-sweeper.ts);
    // a fresh mark is left alone, so writers of the same bytes do not queue (FILE_TOUCH_AGE_SECONDS). The
    // UPDATE reads the statement's snapshot, so it never sees the row the INSERT has just made.
    await this.manager.query(
      `WITH stored AS (INSERT INTO files (sha256, bytes, size) VALUES ($1, $2, $3) ON CONFLICT (sha256) DO NOTHING RETURNING 1)
       UPDATE files SET stored_at = now()
       WHERE sha256 = $1 AND stored_at < now() - make_interval(secs => $4) AND NOT EXISTS (SELECT 1 FROM stored)`,
      [sha256, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), bytes.byteLength, FILE_TOUCH_AGE_SECONDS],
    );
  }

  async insertAlias(alias: AliasRecord): Promise<void> {
    await refusingConflicts(() =>
      this.aliases.insert({ ownerKind: alias.owner.kind, ownerId: alias.owner.id, slug: alias.slug, dashboardId: alias.dashboardId }),
    );
  }

  async deleteAlias(owner: OwnerRef, slug: string): Promise<void> {
    await this.aliases.delete({ ownerKind: owner.kind, ownerId: owner.id, slug });
  }

  async moveAliases(fromDashboardId: string, toDashboardId: string): Promise<void> {
    if (!isUuid(fromDashboardId)) return;
    await refusingConflicts(() => this.aliases.update({ dashboardId: fromDashboardId }, { dashboardId: toDashboardId }));
  }
}

@injectable()
export class PostgresDashboardStore extends TypeormReads implements DashboardStore {
  private readonly reads: NamedStatements;

  /**
   * `preparedStatements`: the hot reads (a listing page, a publish's first read) run as named prepared
   * statements straight on the pool, parsed and planned once per connection
   * (docs/decisions/0041-named-prepared-statements.md). Only for a PostgreSQL server of its own: the embedded
   * database shares one session between all connections, where two connections' names would collide.
   */
  constructor(@inject(DataSource) private readonly dataSource: DataSource, options: { preparedStatements?: boolean } = {}) {
    super(dataSource.manager);
    this.reads = new NamedStatements(dataSource, options.preparedStatements ?? false);
  }

  private readonly guesses = new PublishGuesses();

  async transaction<T>(owner: OwnerRef, work: (tx: DashboardWrites) => Promise<T>): Promise<T> {
    return this.dataSource.transaction(async (manager) => {
      // Every write of one owner serializes on this lock, held until commit or rollback.
      await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [owner.id]);
      return work(new TypeormWrites(manager));
    });
  }

  async list(owner: OwnerRef, query: ListQuery): Promise<DashboardRecord[]> {
    const [sql, params] = listSql(owner, query, false);
    return (await this.reads.rows(sql, params)).map((row) => toListed(row).dashboard);
  }

  async listVersionSummaries(dashboardId: string): Promise<VersionSummary[]> {
    if (!isUuid(dashboardId)) return [];
    return (await this.reads.rows(VERSION_SUMMARIES_SQL, [dashboardId])).map((row) => toVersionSummary(row, dashboardId));
  }

  /** Outside a transaction, the same read as a named prepared statement. */
  override async getVersionSummary(dashboardId: string, versionId: string): Promise<VersionSummary | null> {
    if (!isUuid(dashboardId) || !isUuid(versionId)) return null;
    const [row] = await this.reads.rows(VERSION_SUMMARY_SQL, [versionId, dashboardId]);
    return row ? toVersionSummary(row, dashboardId) : null;
  }

  async publishDays(owner: OwnerRef): Promise<PublishDay[]> {
    const [sql, params] = publishDaysSql(owner);
    return (await this.reads.rows(sql, params)).map((row) => ({ dashboardId: row.dashboard_id as string, day: row.day as string, count: row.count as number }));
  }

  async listWithCurrent(owner: OwnerRef, query: ListQuery): Promise<ListedDashboard[]> {
    const [sql, params] = listSql(owner, query, true);
    return (await this.reads.rows(sql, params)).map(toListed);
  }

  /**
   * One round trip, one commit, when this process guesses the slug's state right (it wrote it last, or
   * the slug is new and the files small: see PublishGuesses); else two: a plain read of the slug, then
   * `dashpub_publish`, which takes the owner's write lock, checks the slug is as read or guessed (no alias;
   * no dashboard, or the row's xmin) and writes files, row, version and prune. When the slug was not so it
   * writes nothing and the same statement answers the slug as it is, and the decision repeats on that. A
   * second miss in a row means other publishes to the slug keep landing in between: the third try holds the
   * owner's lock from its read to its write, so it cannot miss.
   */
  async publish<T>(owner: OwnerRef, slug: string, files: StoredFile[], decide: (state: PublishState) => PublishDecision<T>): Promise<T> {
    const guess = GUESSES ? this.guesses.guess(owner, slug, files) : null;
    let guessed = guess !== null;
    let seen = guess ?? (await this.readState(owner, slug));
    for (let attempt = 0; attempt < UNLOCKED_ATTEMPTS; attempt++) {
      const outcome = await this.attempt(owner, slug, files, decide, seen, guessed);
      if ('result' in outcome) return outcome.result;
      seen = outcome.now ?? (await this.readState(owner, slug));
      guessed = false;
    }
    return this.publishUnderLock(owner, slug, files, decide);
  }

  private async readState(owner: OwnerRef, slug: string): Promise<Guess> {
    const [sql, params] = publishReadSql(owner, slug);
    return toPublishState((await this.reads.rows(sql, params))[0]!.state as Record<string, unknown>);
  }

  /** The read, the decision and the write in one transaction that holds the owner's lock throughout. */
  private async publishUnderLock<T>(owner: OwnerRef, slug: string, files: StoredFile[], decide: (state: PublishState) => PublishDecision<T>): Promise<T> {
    this.guesses.forget(owner, slug);
    return this.dataSource.transaction(async (manager) => {
      await manager.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [owner.id]);
      const [readSql, readParams] = publishReadSql(owner, slug);
      const seen = toPublishState((await manager.query<Record<string, unknown>[]>(readSql, readParams))[0]!.state as Record<string, unknown>);
      const { write, result } = decide(seen.state);
      if (!write) return result;
      checkSameDashboard(write, seen.state);
      const [sql, params] = publishWriteSql(owner, slug, seen.rowVersion, write, files, AUTOMATIC_SNAPSHOTS_KEPT);
      const [row] = await refusingConflicts(() => manager.query<Record<string, unknown>[]>(sql, params));
      if (row!.seq === null) throw new Error(`dashpub_publish found "${slug}" changed while its owner's lock was held`);
      return result;
    });
  }

  /**
   * Decides on `seen` and writes. When the slug was not as seen, answers the slug as the write found it
   * (`now`), or null when only a read can tell (a guess that decided to refuse or not to write).
   */
  private async attempt<T>(
    owner: OwnerRef,
    slug: string,
    files: StoredFile[],
    decide: (state: PublishState) => PublishDecision<T>,
    seen: Guess,
    guessed: boolean,
  ): Promise<{ result: T } | { now: Guess | null }> {
    let decision: PublishDecision<T>;
    try {
      decision = decide(seen.state);
    } catch (refusal) {
      // A refusal decided on a guess is not trusted (the guess may be wrong): a read decides again, and
      // throws the same refusal if the slug really is so.
      if (guessed) return { now: null };
      throw refusal;
    }
    const { write, result } = decision;
    // A dry run reports on the slug as it is, so it never answers from a guess.
    if (!write) return guessed ? { now: null } : { result };
    checkSameDashboard(write, seen.state);
    const [sql, params] = publishWriteSql(owner, slug, seen.rowVersion, write, files, AUTOMATIC_SNAPSHOTS_KEPT);
    // Prepared like the read: parsed and planned once per connection, straight on the pg pool.
    const [row] = await refusingConflicts(() => this.reads.rows(sql, params));
    const seq = row!.seq as number | null;
    if (seq === null) {
      this.guesses.forget(owner, slug);
      return { now: toPublishState(row!.state as Record<string, unknown>) };
    }
    this.guesses.wrote(owner, slug, write, seq, row!.written_version as string);
    return { result };
  }
}

function checkSameDashboard(write: PublishWrite, state: PublishState): void {
  if (write.isNew !== (state.dashboard === null) || (state.dashboard && state.dashboard.id !== write.dashboard.id)) {
    throw new Error('a publish must write the dashboard it read');
  }
}

function columnsOf(record: DashboardRecord) {
  const { owner, ...columns } = record;
  return { ...columns, chart: columns.chart ?? null };
}

/** Constraint violations become the same refusals the memory adapter gives. */
async function refusingConflicts<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    // TypeORM wraps pg's error (DataSource.query); a prepared statement on the pool gives pg's own.
    const driverError = error instanceof QueryFailedError ? error.driverError : error instanceof pg.DatabaseError ? error : null;
    if (!driverError) throw error;
    const { code, constraint, detail } = driverError as { code?: string; constraint?: string; detail?: string };
    if (code === '23505') throw new DomainError('conflict', conflictText(constraint, detail));
    if (code === '23503') throw new DomainError('not_found', `dashboard not found (${constraint ?? 'foreign key'})`);
    throw error;
  }
}

function conflictText(constraint: string | undefined, detail: string | undefined): string {
  const value = /=\(([^)]*)\)/.exec(detail ?? '')?.[1] ?? '';
  switch (constraint) {
    case 'dashboards_owner_slug_key':
      return `slug "${value.split(', ').pop()}" is already used by another dashboard`;
    case 'dashboard_versions_seq_key':
      return `version seq ${value.split(', ').pop()} already exists for dashboard ${value.split(', ')[0]}`;
    case 'dashboard_aliases_pkey':
      return `alias "${value.split(', ').pop()}" already exists`;
    default:
      return `${constraint ?? 'a unique constraint'} refused a duplicate`;
  }
}
