import { inject, injectable } from 'inversify';
import { DashboardStore, type DashboardRecord, type Manifest, type VersionRecord } from '../ports/dashboard-store.js';
import { LiveFiles } from '../refresh/live-files.js';

/**
 * What the dashboards host serves for a dashboard right now: the one place that decides, so the host,
 * get_dashboard and resources/read return the same bytes. A refreshed spec dashboard serves its last
 * good live render (with the version's other files); anything else serves its current version's files.
 */
@injectable()
export class ServedFiles {
  constructor(
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(LiveFiles) private readonly live: LiveFiles,
  ) {}

  /**
   * The filename → file manifest being served, or null when the dashboard has no readable version. A caller
   * that has just loaded the current version passes it (`current`), so it is not read a second time.
   */
  async manifest(dashboard: DashboardRecord, current?: Pick<VersionRecord, 'id' | 'files'>): Promise<Manifest | null> {
    const loaded = current?.id === dashboard.currentVersionId ? current.files : undefined;
    // Only the files: the spec, which may be megabytes, is not what a host serves from.
    const [live, files] = await Promise.all([
      this.live.liveFilesFor(dashboard),
      loaded ?? this.store.getVersionSummary(dashboard.id, dashboard.currentVersionId).then((version) => version?.files ?? null),
    ]);
    if (!files) return null;
    // A refresh re-renders only the spec's own files; any other file published beside them stays.
    return live ? { ...files, ...live } : files;
  }

  async bytes(sha256: string): Promise<Uint8Array | null> {
    return this.store.getFile(sha256);
  }
}
