import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { contentTypeFor } from '../../domain/content-types.js';
import { distinctFiles, parseArchiveManifest, type ArchiveManifest, type ArchivedDashboard } from '../../domain/dashboard-archive.js';
import { DomainError, isDomainError } from '../../domain/errors.js';
import { ownerOf, subdomainOf, type OwnerRef, type Target } from '../../domain/scope.js';
import { AccountStore } from '../ports/account-store.js';
import { Clock } from '../ports/clock.js';
import { ConnectionStore } from '../ports/connection-store.js';
import { DashboardStore, type DashboardWrites, type Manifest } from '../ports/dashboard-store.js';
import { RefreshStateStore } from '../ports/refresh-state-store.js';
import { nextRuns, parseSchedule } from '../refresh/cron.js';
import type { ArchiveProgress } from './export-dashboards.js';
import { resolveOperatorTarget, type OperatorSelector } from '../operator-target.js';
import { contentHash } from '../file-entries.js';

/** Where an import reads file bytes from: null when the archive has no such file. */
export interface ArchiveFileSource {
  read(sha256: string): Promise<Uint8Array | null>;
}

export type ImportOutcome = 'imported' | 'skipped' | 'refused';

export interface ImportedDashboard {
  slug: string;
  outcome: ImportOutcome;
  /** Why it was skipped or refused. */
  reason: string | null;
  /** What was imported but will not behave as it did (an alias not recreated, a connection that will not refresh). */
  warnings: string[];
}

export interface ImportReport {
  target: { kind: Target['kind']; name: string };
  imported: number;
  skipped: number;
  refused: number;
  dashboards: ImportedDashboard[];
}

export const SLUG_EXISTS = 'slug exists';


export const foreignConnectionWarning = (target: Target, connectionId: string, slug: string) =>
  `connection ${connectionId} is not one of ${target.kind === 'personal' ? `${target.handle}'s connections` : `the connections of workspace "${target.slug}"`}, ` +
  `so "${slug}" will not refresh until it is bound to one of them (update_dashboard with "connection")`;

/** The whole archive is refused before anything is written; the message says so, then what is wrong. */
const archiveRefused = (err: DomainError) => new DomainError(err.code, `archive refused, nothing was imported: ${err.message}`);

/**
 * `dashpub dashboard import`: checks the whole archive first (manifest rules, every file present and
 * hashing to its name), then writes each dashboard in its own transaction, so a failure loses nothing
 * already imported and never leaves half a dashboard. Everything gets new ids, so one archive can be
 * imported for several owners of one instance.
 */
@injectable()
export class ImportDashboards {
  constructor(
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(RefreshStateStore) private readonly refresh: RefreshStateStore,
    @inject(ConnectionStore) private readonly connections: ConnectionStore,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(selector: OperatorSelector, input: unknown, files: ArchiveFileSource, onProgress: ArchiveProgress = () => {}): Promise<ImportReport> {
    const target = await resolveOperatorTarget(this.accounts, selector);
    const importer = await this.importerOf(target);
    const manifest = await this.checkArchive(input, files);
    const foreignConnections = await this.foreignConnections(target, manifest.dashboards);

    const report: ImportReport = { target: { kind: target.kind, name: subdomainOf(target) }, imported: 0, skipped: 0, refused: 0, dashboards: [] };
    for (const [i, dashboard] of manifest.dashboards.entries()) {
      const result = await this.importOne(ownerOf(target), importer, dashboard, files);
      if (result.outcome === 'imported' && foreignConnections.has(dashboard.connection)) {
        result.warnings.push(foreignConnectionWarning(target, dashboard.connection, dashboard.slug));
      }
      report[result.outcome] += 1;
      report.dashboards.push(result);
      onProgress(i + 1, manifest.dashboards.length, dashboard.slug);
    }
    return report;
  }

  /** Who the imported dashboards and versions are recorded as created by. */
  private async importerOf(target: Target): Promise<string> {
    if (target.kind === 'personal') return target.userId;
    const admin = (await this.accounts.listMembers(target.workspaceId)).find((m) => m.role === 'admin');
    if (!admin) {
      throw new DomainError(
        'conflict',
        `workspace "${target.slug}" has no admin member to record as the dashboards' creator; ` +
          `add one with \`dashpub workspace member add --workspace ${target.slug} --user <handle> --role admin\` and import again`,
      );
    }
    return admin.user.id;
  }

  private async checkArchive(input: unknown, files: ArchiveFileSource): Promise<ArchiveManifest> {
    try {
      const manifest = parseArchiveManifest(input);
      for (const dashboard of manifest.dashboards) {
        if (dashboard.refresh_schedule) {
          try {
            parseSchedule(dashboard.refresh_schedule.cron, dashboard.refresh_schedule.timezone);
          } catch (err) {
            throw isDomainError(err) ? new DomainError(err.code, `dashboard "${dashboard.slug}": refresh_schedule: ${err.message}`) : err;
          }
        }
      }
      // Read every file once now, so a missing or corrupted one stops the import before any write.
      for (const [sha256, { where, file }] of distinctFiles(manifest.dashboards)) {
        const bytes = await files.read(sha256);
        if (!bytes) throw new DomainError('invalid_argument', `${where}: file ${sha256} is missing from the archive`);
        const actual = contentHash(bytes);
        if (actual !== sha256) throw new DomainError('invalid_argument', `${where}: file ${sha256} is corrupted (its bytes hash to ${actual})`);
        if (bytes.byteLength !== file.size) {
          throw new DomainError('invalid_argument', `${where}: file ${sha256} is ${bytes.byteLength} bytes, the manifest says ${file.size}`);
        }
      }
      return manifest;
    } catch (err) {
      throw isDomainError(err) ? archiveRefused(err) : err;
    }
  }

  /**
   * Warehouse connection ids the target cannot refresh on (missing here, or another scope's). They are
   * kept as they are, since the operator may rebind the dashboards later, and reported.
   */
  private async foreignConnections(target: Target, dashboards: ArchivedDashboard[]): Promise<Set<string>> {
    const foreign = new Set<string>();
    for (const id of new Set(dashboards.map((d) => d.connection).filter((c) => c !== 'self'))) {
      const connection = await this.connections.findById(id);
      const own =
        connection !== null &&
        (target.kind === 'personal'
          ? connection.workspaceId === null && connection.ownerUserId === target.userId
          : connection.workspaceId === target.workspaceId);
      if (!own) foreign.add(id);
    }
    return foreign;
  }

  private async importOne(owner: OwnerRef, importer: string, dashboard: ArchivedDashboard, files: ArchiveFileSource): Promise<ImportedDashboard> {
    const result: ImportedDashboard = { slug: dashboard.slug, outcome: 'imported', reason: null, warnings: [] };
    // Bytes are read before the transaction opens, so the owner's write lock is held only for the writes.
    const bytes = new Map<string, Uint8Array>();
    for (const version of dashboard.versions) {
      for (const file of Object.values(version.files)) {
        if (bytes.has(file.sha256)) continue;
        const read = await files.read(file.sha256);
        // Checked before the first write; only a change to the archive during the import gets here.
        if (!read || contentHash(read) !== file.sha256) return { ...result, outcome: 'refused', reason: `file ${file.sha256} changed in the archive during the import` };
        bytes.set(file.sha256, read);
      }
    }
    const dashboardId = randomUUID();
    try {
      const written = await this.store.transaction(owner, async (tx) => {
        if ((await tx.findDashboard(owner, dashboard.slug)) || (await tx.findAlias(owner, dashboard.slug))) return false;
        await this.write(tx, owner, importer, dashboardId, dashboard, bytes, result.warnings);
        return true;
      });
      if (!written) return { ...result, outcome: 'skipped', reason: SLUG_EXISTS };
    } catch (err) {
      if (!isDomainError(err)) throw err;
      return { ...result, outcome: 'refused', reason: err.message, warnings: [] };
    }
    // The schedule lives in another store (and on the embedded database, another session cannot run
    // while the dashboard's transaction holds it), so it is written after the commit and undone with
    // the dashboard if it fails: an imported dashboard always has the schedule its archive had.
    if (dashboard.refresh_schedule) {
      try {
        const { cron, timezone } = parseSchedule(dashboard.refresh_schedule.cron, dashboard.refresh_schedule.timezone);
        await this.refresh.setSchedule({ dashboardId, cron, timezone, nextRunAt: nextRuns(cron, timezone, this.clock.now(), 1)[0] ?? null });
      } catch (err) {
        await this.store.transaction(owner, (tx) => tx.deleteDashboard(dashboardId));
        if (!isDomainError(err)) throw err;
        return { ...result, outcome: 'refused', reason: `its refresh schedule could not be recreated: ${err.message}`, warnings: [] };
      }
    }
    return result;
  }

  private async write(
    tx: DashboardWrites,
    owner: OwnerRef,
    importer: string,
    dashboardId: string,
    dashboard: ArchivedDashboard,
    bytes: Map<string, Uint8Array>,
    warnings: string[],
  ): Promise<void> {
    const versions = dashboard.versions.map((v, i) => ({ archived: v, id: randomUUID(), seq: i + 1 }));
    const current = versions.find((v) => v.archived.current)!;
    await tx.insertDashboard({
      id: dashboardId,
      owner,
      slug: dashboard.slug,
      name: dashboard.name,
      tags: dashboard.tags,
      chart: dashboard.chart,
      visibility: dashboard.visibility,
      connection: dashboard.connection,
      currentVersionId: current.id,
      createdBy: importer,
      createdAt: new Date(dashboard.created_at),
      updatedAt: new Date(dashboard.updated_at),
    });
    for (const [sha256, data] of bytes) await tx.putFile(sha256, data);
    for (const { archived, id, seq } of versions) {
      const manifest: Manifest = {};
      for (const [filename, file] of Object.entries(archived.files)) {
        manifest[filename] = { sha256: file.sha256, size: file.size, contentType: contentTypeFor(filename) };
      }
      await tx.insertVersion({ id, dashboardId, seq, name: archived.name, createdAt: new Date(archived.created_at), createdBy: importer, files: manifest, spec: archived.spec });
    }
    for (const alias of dashboard.aliases) {
      if ((await tx.findDashboard(owner, alias)) || (await tx.findAlias(owner, alias))) {
        warnings.push(`alias "${alias}" was not recreated: the slug is taken`);
        continue;
      }
      await tx.insertAlias({ owner, slug: alias, dashboardId });
    }
  }
}
