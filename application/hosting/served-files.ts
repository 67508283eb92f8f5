import { inject, injectable } from 'inversify';
import { DashboardStore, type DashboardRecord, type Manifest } from '../ports/dashboard-store.js';

/**
 * What the dashboards host serves for a dashboard right now: the one place that decides, so a live
 * render (refreshed spec dashboards) can be slotted in here and every reader of served bytes follows.
 */
@injectable()
export class ServedFiles {
  constructor(@inject(DashboardStore) private readonly store: DashboardStore) {}

  /** The filename → file manifest being served, or null when the dashboard has no readable version. */
  async manifest(dashboard: DashboardRecord): Promise<Manifest | null> {
    const version = await this.store.getVersion(dashboard.id, dashboard.currentVersionId);
    return version ? version.files : null;
  }

  async bytes(sha256: string): Promise<Uint8Array | null> {
    return this.store.getFile(sha256);
  }
}
