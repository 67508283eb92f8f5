import { inject, injectable } from 'inversify';
import { DashboardStore, type DashboardRecord, type Manifest } from '../ports/dashboard-store.js';
import { LiveFiles } from '../refresh/live-files.js';

/**
 * What the dashboards host serves for a dashboard right now: the one place that decides, so the host,
 * get_dashboard and resources/read return the same bytes. A refreshed spec dashboard serves its last
 * good live render; anything else serves its current version's files.
 */
@injectable()
export class ServedFiles {
  constructor(
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(LiveFiles) private readonly live: LiveFiles,
  ) {}

  /** The filename → file manifest being served, or null when the dashboard has no readable version. */
  async manifest(dashboard: DashboardRecord): Promise<Manifest | null> {
    const live = await this.live.liveFilesFor(dashboard);
    if (live) return live;
    const version = await this.store.getVersion(dashboard.id, dashboard.currentVersionId);
    return version ? version.files : null;
  }

  async bytes(sha256: string): Promise<Uint8Array | null> {
    return this.store.getFile(sha256);
  }
}
