import type { OwnerRef } from '../../domain/scope.js';
import type { DashboardStore, DashboardWrites, ListQuery, PublishDecision, PublishState, StoredFile } from '../ports/dashboard-store.js';

/**
 * The DashboardStore with this process's own writes reported at once to `changed` (the listing cache),
 * instead of waiting for the database's notification to come back: a list right after a publish made by
 * this process never shows the page from before it, however the notification races it. Every write goes
 * through `transaction` or `publish`, both named by their owner; the report comes when they are over
 * (committed or rolled back: a report too many costs one rebuilt page, never a stale one).
 */
export class InvalidatingDashboardStore implements DashboardStore {
  constructor(
    private readonly store: DashboardStore,
    private readonly changed: (owner: OwnerRef) => void,
  ) {}

  async transaction<T>(owner: OwnerRef, work: (tx: DashboardWrites) => Promise<T>): Promise<T> {
    try {
      return await this.store.transaction(owner, work);
    } finally {
      this.changed(owner);
    }
  }

  async publish<T>(owner: OwnerRef, slug: string, files: StoredFile[], decide: (state: PublishState) => PublishDecision<T>): Promise<T> {
    try {
      return await this.store.publish(owner, slug, files, decide);
    } finally {
      this.changed(owner);
    }
  }

  list(owner: OwnerRef, query: ListQuery) { return this.store.list(owner, query); }
  listWithCurrent(owner: OwnerRef, query: ListQuery) { return this.store.listWithCurrent(owner, query); }
  findDashboard(owner: OwnerRef, slug: string) { return this.store.findDashboard(owner, slug); }
  findDashboardById(id: string) { return this.store.findDashboardById(id); }
  findAlias(owner: OwnerRef, slug: string) { return this.store.findAlias(owner, slug); }
  listAliases(dashboardId: string) { return this.store.listAliases(dashboardId); }
  getVersion(dashboardId: string, versionId: string) { return this.store.getVersion(dashboardId, versionId); }
  listVersions(dashboardId: string) { return this.store.listVersions(dashboardId); }
  getFile(sha256: string) { return this.store.getFile(sha256); }
}
