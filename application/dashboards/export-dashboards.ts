import { inject, injectable } from 'inversify';
import { ARCHIVE_FORMAT, ARCHIVE_VERSION, type ArchiveManifest, type ArchivedDashboard } from '../../domain/dashboard-archive.js';
import { ownerOf, subdomainOf } from '../../domain/scope.js';
import { AccountStore } from '../ports/account-store.js';
import { Clock } from '../ports/clock.js';
import { DashboardStore, type DashboardRecord } from '../ports/dashboard-store.js';
import { RefreshStateStore } from '../ports/refresh-state-store.js';
import { resolveOperatorTarget, type OperatorSelector } from '../operator-target.js';
import { listAllDashboards } from '../dashboard-lookup.js';

/** Called after each dashboard of an export or import: how many are done, of how many, and which one. */
export type ArchiveProgress = (done: number, total: number, slug: string) => void;

/** Where an export puts file bytes; each distinct file is handed over once. */
export interface ArchiveFileSink {
  save(sha256: string, bytes: Uint8Array): Promise<void>;
}

export interface ExportSummary {
  manifest: ArchiveManifest;
  versions: number;
  files: number;
  bytes: number;
}

/**
 * `dashpub dashboard export`: one owner's dashboards as archive records (metadata, aliases, every kept
 * version with its manifest and spec, the refresh schedule), with each file's bytes handed to the sink
 * once. The records are plain data; writing them anywhere is the caller's business.
 */
@injectable()
export class ExportDashboards {
  constructor(
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(RefreshStateStore) private readonly refresh: RefreshStateStore,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(selector: OperatorSelector, sink: ArchiveFileSink, onProgress: ArchiveProgress = () => {}): Promise<ExportSummary> {
    const target = await resolveOperatorTarget(this.accounts, selector);
    const exportedAt = this.clock.now();
    const listed = await listAllDashboards(this.store, ownerOf(target));
    const saved = new Set<string>();
    const summary = { versions: 0, files: 0, bytes: 0 };
    const dashboards: ArchivedDashboard[] = [];
    for (const [i, dashboard] of listed.entries()) {
      const archived = await this.archive(dashboard);
      // A dashboard deleted while the export ran has nothing left to export.
      if (archived) {
        for (const version of archived.versions) {
          for (const [filename, file] of Object.entries(version.files)) {
            if (saved.has(file.sha256)) continue;
            const bytes = await this.store.getFile(file.sha256);
            if (!bytes) throw new Error(`dashboard "${dashboard.slug}": the bytes of "${filename}" (${file.sha256}) are missing from the store`);
            await sink.save(file.sha256, bytes);
            saved.add(file.sha256);
            summary.files += 1;
            summary.bytes += bytes.byteLength;
          }
        }
        summary.versions += archived.versions.length;
        dashboards.push(archived);
      }
      onProgress(i + 1, listed.length, dashboard.slug);
    }
    const manifest: ArchiveManifest = {
      format: ARCHIVE_FORMAT,
      version: ARCHIVE_VERSION,
      exported_at: exportedAt.toISOString(),
      source: { kind: target.kind, name: subdomainOf(target) },
      dashboards,
    };
    return { manifest, ...summary };
  }


  private async archive(dashboard: DashboardRecord): Promise<ArchivedDashboard | null> {
    const versions = (await this.store.listVersions(dashboard.id)).reverse();
    if (!versions.some((v) => v.id === dashboard.currentVersionId)) return null;
    const aliases = await this.store.listAliases(dashboard.id);
    const schedule = await this.refresh.getSchedule(dashboard.id);
    return {
      slug: dashboard.slug,
      name: dashboard.name,
      tags: dashboard.tags,
      chart: dashboard.chart,
      visibility: dashboard.visibility,
      connection: dashboard.connection,
      created_at: dashboard.createdAt.toISOString(),
      updated_at: dashboard.updatedAt.toISOString(),
      aliases: aliases.map((a) => a.slug),
      versions: versions.map((v) => ({
        name: v.name,
        created_at: v.createdAt.toISOString(),
        current: v.id === dashboard.currentVersionId,
        files: Object.fromEntries(Object.entries(v.files).map(([filename, f]) => [filename, { sha256: f.sha256, size: f.size }])),
        spec: v.spec ?? null,
      })),
      refresh_schedule: schedule ? { cron: schedule.cron, timezone: schedule.timezone } : null,
    };
  }
}
