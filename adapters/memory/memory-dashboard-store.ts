import { injectable } from 'inversify';
import { DomainError } from '../../domain/errors.js';
import { nextVersionSeq, snapshotsToPrune } from '../../domain/versions.js';
import { isRefreshableSpec } from '../../domain/dashboard-spec.js';
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
  StoredFile,
  VersionOutline,
  VersionRecord,
  VersionSummary,
} from '../../application/ports/dashboard-store.js';

const summaryOf = ({ spec, ...version }: VersionRecord): VersionSummary => ({
  ...version,
  kind: spec === null ? 'body' : 'spec',
  refreshable: isRefreshableSpec(spec),
});

interface Rows<V> {
  get(key: string): V | undefined;
  values(): Iterable<V>;
}

/**
 * A transaction's private changes over the committed rows (null marks a deletion). Readers outside the
 * transaction keep seeing the committed rows; a throw simply drops the overlay.
 */
class Overlay<V> implements Rows<V> {
  private readonly changes = new Map<string, V | null>();
  constructor(private readonly base: Map<string, V>) {}

  get(key: string): V | undefined {
    return this.changes.has(key) ? (this.changes.get(key) ?? undefined) : this.base.get(key);
  }

  *values(): Iterable<V> {
    for (const [key, value] of this.base) if (!this.changes.has(key)) yield value;
    for (const value of this.changes.values()) if (value !== null) yield value;
  }

  set(key: string, value: V): void {
    this.changes.set(key, value);
  }

  delete(key: string): void {
    this.changes.set(key, null);
  }

  commit(): void {
    for (const [key, value] of this.changes) {
      if (value === null) this.base.delete(key);
      else this.base.set(key, value);
    }
  }
}

interface Tables {
  dashboards: Rows<DashboardRecord>;
  versions: Rows<VersionRecord>;
  aliases: Rows<AliasRecord>;
  files: Rows<Uint8Array>;
}

const UPDATABLE = new Set(['slug', 'name', 'tags', 'chart', 'visibility', 'connection', 'currentVersionId', 'updatedAt']);
const aliasKey = (owner: OwnerRef, slug: string) => `${owner.kind}:${owner.id}/${slug}`;
const sameOwner = (a: OwnerRef, b: OwnerRef) => a.kind === b.kind && a.id === b.id;
const jsonCopy = <T>(value: T): T => (value === undefined || value === null ? (null as T) : JSON.parse(JSON.stringify(value)));

class MemoryReads implements DashboardReads {
  constructor(protected readonly tables: Tables) {}

  async findDashboard(owner: OwnerRef, slug: string): Promise<DashboardRecord | null> {
    return clone(this.dashboardBySlug(owner, slug));
  }

  async findDashboardById(id: string): Promise<DashboardRecord | null> {
    return clone(this.tables.dashboards.get(id));
  }

  async findAlias(owner: OwnerRef, slug: string): Promise<AliasRecord | null> {
    return clone(this.tables.aliases.get(aliasKey(owner, slug)));
  }

  async listAliases(dashboardId: string): Promise<AliasRecord[]> {
    return [...this.tables.aliases.values()]
      .filter((alias) => alias.dashboardId === dashboardId)
      .sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0))
      .map((alias) => structuredClone(alias));
  }

  async getVersion(dashboardId: string, versionId: string): Promise<VersionRecord | null> {
    const version = this.tables.versions.get(versionId);
    return version?.dashboardId === dashboardId ? clone(version) : null;
  }

  async getVersionSummary(dashboardId: string, versionId: string): Promise<VersionSummary | null> {
    const version = await this.getVersion(dashboardId, versionId);
    return version && summaryOf(version);
  }

  async getVersionOutline(dashboardId: string, versionId: string): Promise<VersionOutline | null> {
    const version = await this.getVersion(dashboardId, versionId);
    return version && { ...summaryOf(version), params: (version.spec as { params?: unknown } | null)?.params ?? null };
  }

  async listVersions(dashboardId: string): Promise<VersionRecord[]> {
    return this.versionsOf(dashboardId)
      .sort((a, b) => b.seq - a.seq)
      .map((v) => structuredClone(v));
  }

  async getFile(sha256: string): Promise<Uint8Array | null> {
    const bytes = this.tables.files.get(sha256);
    return bytes ? new Uint8Array(bytes) : null;
  }

  protected dashboardBySlug(owner: OwnerRef, slug: string): DashboardRecord | undefined {
    for (const d of this.tables.dashboards.values()) if (d.slug === slug && sameOwner(d.owner, owner)) return d;
    return undefined;
  }

  protected versionsOf(dashboardId: string): VersionRecord[] {
    return [...this.tables.versions.values()].filter((v) => v.dashboardId === dashboardId);
  }
}

interface Overlays {
  dashboards: Overlay<DashboardRecord>;
  versions: Overlay<VersionRecord>;
  aliases: Overlay<AliasRecord>;
  files: Overlay<Uint8Array>;
}

/** The writes of one transaction; it refuses what the database's constraints refuse. */
class MemoryWrites extends MemoryReads implements DashboardWrites {
  constructor(private readonly overlays: Overlays) {
    super(overlays);
  }

  async insertDashboard(record: DashboardRecord): Promise<void> {
    if (this.overlays.dashboards.get(record.id)) throw new DomainError('conflict', `dashboard ${record.id} already exists`);
    this.refuseTakenSlug(record.owner, record.slug);
    this.overlays.dashboards.set(record.id, { ...structuredClone(record), chart: record.chart ?? null });
  }

  async updateDashboard(id: string, changes: Partial<Omit<DashboardRecord, 'id' | 'owner' | 'createdAt' | 'createdBy'>>): Promise<void> {
    const current = this.overlays.dashboards.get(id);
    if (!current) return;
    const defined = Object.fromEntries(Object.entries(changes).filter(([key, value]) => value !== undefined && UPDATABLE.has(key)));
    if (typeof defined.slug === 'string' && defined.slug !== current.slug) this.refuseTakenSlug(current.owner, defined.slug);
    this.overlays.dashboards.set(id, { ...current, ...structuredClone(defined) });
  }

  async deleteDashboard(id: string): Promise<void> {
    if (!this.overlays.dashboards.get(id)) return;
    this.overlays.dashboards.delete(id);
    for (const version of this.versionsOf(id)) this.overlays.versions.delete(version.id);
    for (const alias of [...this.overlays.aliases.values()]) {
      if (alias.dashboardId === id) this.overlays.aliases.delete(aliasKey(alias.owner, alias.slug));
    }
  }

  async insertVersion(record: VersionRecord): Promise<void> {
    if (!this.overlays.dashboards.get(record.dashboardId)) throw new DomainError('not_found', `dashboard ${record.dashboardId} not found`);
    if (this.overlays.versions.get(record.id)) throw new DomainError('conflict', `version ${record.id} already exists`);
    if (this.versionsOf(record.dashboardId).some((v) => v.seq === record.seq)) {
      throw new DomainError('conflict', `version seq ${record.seq} already exists for dashboard ${record.dashboardId}`);
    }
    this.overlays.versions.set(record.id, {
      ...structuredClone({ ...record, files: {}, spec: null }),
      files: jsonCopy(record.files),
      spec: jsonCopy(record.spec),
    });
  }

  async setVersionName(versionId: string, name: string | null): Promise<void> {
    const version = this.overlays.versions.get(versionId);
    if (version) this.overlays.versions.set(versionId, { ...version, name });
  }

  async deleteVersions(versionIds: string[]): Promise<void> {
    for (const id of versionIds) if (this.overlays.versions.get(id)) this.overlays.versions.delete(id);
  }

  async putFile(sha256: string, bytes: Uint8Array): Promise<void> {
    if (!this.overlays.files.get(sha256)) this.overlays.files.set(sha256, new Uint8Array(bytes));
  }

  async insertAlias(alias: AliasRecord): Promise<void> {
    if (!this.overlays.dashboards.get(alias.dashboardId)) throw new DomainError('not_found', `dashboard ${alias.dashboardId} not found`);
    const key = aliasKey(alias.owner, alias.slug);
    if (this.overlays.aliases.get(key)) throw new DomainError('conflict', `alias "${alias.slug}" already exists`);
    this.overlays.aliases.set(key, structuredClone(alias));
  }

  async deleteAlias(owner: OwnerRef, slug: string): Promise<void> {
    const key = aliasKey(owner, slug);
    if (this.overlays.aliases.get(key)) this.overlays.aliases.delete(key);
  }

  async moveAliases(fromDashboardId: string, toDashboardId: string): Promise<void> {
    for (const alias of [...this.overlays.aliases.values()]) {
      if (alias.dashboardId === fromDashboardId) {
        this.overlays.aliases.set(aliasKey(alias.owner, alias.slug), { ...alias, dashboardId: toDashboardId });
      }
    }
  }

  commit(): void {
    this.overlays.files.commit();
    this.overlays.dashboards.commit();
    this.overlays.versions.commit();
    this.overlays.aliases.commit();
  }

  private refuseTakenSlug(owner: OwnerRef, slug: string): void {
    if (this.dashboardBySlug(owner, slug)) throw new DomainError('conflict', `slug "${slug}" is already used by another dashboard`);
  }
}

/**
 * Dashboards in Maps. Transactions of one owner run one after another (a promise chain per owner) and
 * work on an overlay committed only when `work` resolves, so a throw leaves nothing behind.
 */
@injectable()
export class MemoryDashboardStore extends MemoryReads implements DashboardStore {
  private readonly rows: {
    dashboards: Map<string, DashboardRecord>;
    versions: Map<string, VersionRecord>;
    aliases: Map<string, AliasRecord>;
    files: Map<string, Uint8Array>;
  };
  private readonly locks = new Map<string, Promise<void>>();

  constructor() {
    const rows = {
      dashboards: new Map<string, DashboardRecord>(),
      versions: new Map<string, VersionRecord>(),
      aliases: new Map<string, AliasRecord>(),
      files: new Map<string, Uint8Array>(),
    };
    super(rows);
    this.rows = rows;
  }

  async transaction<T>(owner: OwnerRef, work: (tx: DashboardWrites) => Promise<T>): Promise<T> {
    const lockKey = `${owner.kind}:${owner.id}`;
    const previous = this.locks.get(lockKey) ?? Promise.resolve();
    let release!: () => void;
    const tail = previous.then(() => new Promise<void>((resolve) => (release = resolve)));
    this.locks.set(lockKey, tail);
    await previous;
    const tx = new MemoryWrites({
      dashboards: new Overlay(this.rows.dashboards),
      versions: new Overlay(this.rows.versions),
      aliases: new Overlay(this.rows.aliases),
      files: new Overlay(this.rows.files),
    });
    try {
      const result = await work(closeable(tx));
      tx.commit();
      return result;
    } finally {
      closed.add(tx);
      release();
      if (this.locks.get(lockKey) === tail) this.locks.delete(lockKey);
    }
  }

  async list(owner: OwnerRef, query: ListQuery): Promise<DashboardRecord[]> {
    const { afterSlug, tag, slug, limit } = query;
    return [...this.rows.dashboards.values()]
      .filter((d) => sameOwner(d.owner, owner))
      .filter((d) => afterSlug === undefined || d.slug > afterSlug)
      .filter((d) => tag === undefined || d.tags.includes(tag))
      .filter((d) => slug === undefined || d.slug === slug)
      .sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0))
      .slice(0, limit)
      .map((d) => structuredClone(d));
  }

  async listVersionSummaries(dashboardId: string): Promise<VersionSummary[]> {
    return (await this.listVersions(dashboardId)).map(summaryOf);
  }

  async publishDays(owner: OwnerRef): Promise<PublishDay[]> {
    const days: PublishDay[] = [];
    for (const dashboard of await this.list(owner, { limit: Infinity })) {
      const perDay = new Map<string, number>();
      for (const version of await this.listVersions(dashboard.id)) {
        const day = version.createdAt.toISOString().slice(0, 10);
        perDay.set(day, (perDay.get(day) ?? 0) + 1);
      }
      for (const [day, count] of perDay) days.push({ dashboardId: dashboard.id, day, count });
    }
    return days;
  }

  async listWithCurrent(owner: OwnerRef, query: ListQuery): Promise<ListedDashboard[]> {
    const listed: ListedDashboard[] = [];
    for (const dashboard of await this.list(owner, query)) {
      const current = await this.getVersionSummary(dashboard.id, dashboard.currentVersionId);
      listed.push({ dashboard, current: current && { id: current.id, files: current.files, refreshable: current.refreshable } });
    }
    return listed;
  }

  async publish<T>(owner: OwnerRef, slug: string, files: StoredFile[], decide: (state: PublishState) => PublishDecision<T>): Promise<T> {
    return this.transaction(owner, async (tx) => {
      const alias = await tx.findAlias(owner, slug);
      const dashboard = await tx.findDashboard(owner, slug);
      const current = dashboard ? await tx.getVersion(dashboard.id, dashboard.currentVersionId) : null;
      const aliased = alias ? await tx.findDashboardById(alias.dashboardId) : null;
      const { write, result } = decide({ alias: alias ? { dashboardSlug: aliased?.slug ?? null } : null, dashboard, current });
      if (!write) return result;
      for (const file of files) await tx.putFile(file.sha256, file.bytes);
      const existing = write.isNew ? [] : await tx.listVersions(write.dashboard.id);
      const version = { ...write.version, seq: nextVersionSeq(existing) };
      if (write.isNew) await tx.insertDashboard(write.dashboard);
      await tx.insertVersion(version);
      if (!write.isNew) {
        const { id, owner: _owner, createdAt, createdBy, ...changes } = write.dashboard;
        await tx.updateDashboard(id, changes);
      }
      const doomed = snapshotsToPrune(existing);
      if (doomed.length > 0) await tx.deleteVersions(doomed);
      return result;
    });
  }
}

const closed = new WeakSet<MemoryWrites>();

/** A handle that refuses use after its transaction ended, as a released database connection would. */
function closeable(tx: MemoryWrites): DashboardWrites {
  return new Proxy(tx, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function' || property === 'commit') return value;
      return (...args: unknown[]) => {
        if (closed.has(target)) return Promise.reject(new Error('the transaction has ended'));
        return value.apply(target, args);
      };
    },
  });
}

function clone<T>(value: T | undefined): T | null {
  return value === undefined ? null : structuredClone(value);
}
