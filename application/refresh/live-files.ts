import { inject, injectable } from 'inversify';
import type { Manifest } from '../ports/dashboard-store.js';
import { RefreshStateStore } from '../ports/refresh-state-store.js';

/**
 * What the dashboards host should serve for a refreshed dashboard: the last good refresh's files, as
 * long as they were rendered from the current version. A later publish or restore makes the live
 * render stale, so the new version's own files show until the next refresh.
 */
@injectable()
export class LiveFiles {
  constructor(@inject(RefreshStateStore) private readonly state: RefreshStateStore) {}

  async liveFilesFor(dashboard: { id: string; currentVersionId: string }): Promise<Manifest | null> {
    const live = await this.state.liveRender(dashboard.id);
    return live && live.versionId === dashboard.currentVersionId ? live.files : null;
  }
}
