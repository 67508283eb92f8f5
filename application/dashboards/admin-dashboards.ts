import { inject, injectable } from 'inversify';
import { invalid } from '../../domain/errors.js';
import { ownerOf, type Target } from '../../domain/scope.js';
import { AccountStore } from '../ports/account-store.js';
import { DashboardStore, type DashboardRecord } from '../ports/dashboard-store.js';
import { resolveOperatorTarget } from '../operator-target.js';
import { listAllDashboards } from '../dashboard-lookup.js';

/** One dashboard of the operator's listing, with the owner (user or workspace) it belongs to. */
export interface AdminDashboardRow {
  target: Target;
  dashboard: DashboardRecord;
}

/** The operator's view of dashboards (CLI `dashboard list`), across owners. */
@injectable()
export class AdminDashboards {
  constructor(
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(DashboardStore) private readonly store: DashboardStore,
  ) {}

  async list(filter: { owner?: string; workspace?: string }): Promise<AdminDashboardRow[]> {
    if (filter.owner && filter.workspace) throw invalid('pass --owner or --workspace, not both');
    const targets = await this.targets(filter);
    const rows: AdminDashboardRow[] = [];
    for (const target of targets) {
      for (const dashboard of await listAllDashboards(this.store, ownerOf(target))) rows.push({ target, dashboard });
    }
    return rows;
  }

  private async targets(filter: { owner?: string; workspace?: string }): Promise<Target[]> {
    if (filter.owner || filter.workspace) return [await resolveOperatorTarget(this.accounts, filter)];
    const users = (await this.accounts.listUsers()).map((u): Target => ({ kind: 'personal', userId: u.id, handle: u.handle }));
    const workspaces = (await this.accounts.listWorkspaces()).map((w): Target => ({ kind: 'workspace', workspaceId: w.id, slug: w.slug }));
    return [...users, ...workspaces];
  }
}
