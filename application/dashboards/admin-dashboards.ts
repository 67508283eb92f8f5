import { inject, injectable } from 'inversify';
import { invalid } from '../../domain/errors.js';
import { ownerOf, type Target } from '../../domain/scope.js';
import { AccountStore } from '../ports/account-store.js';
import { DashboardStore } from '../ports/dashboard-store.js';
import { Settings } from '../ports/settings.js';
import { resolveOperatorTarget } from './operator-target.js';
import { listAllDashboards } from './lookup.js';
import { canonicalUrl } from '../../domain/urls.js';
import { subdomainOf } from '../../domain/scope.js';

export interface AdminDashboardRow {
  owner: string;
  kind: 'personal' | 'workspace';
  slug: string;
  name: string;
  visibility: string;
  url: string;
  updated_at: string;
}

/** The operator's view of dashboards (CLI `dashboard list`), across owners. */
@injectable()
export class AdminDashboards {
  constructor(
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(Settings) private readonly settings: Settings,
  ) {}

  async list(filter: { owner?: string; workspace?: string }): Promise<AdminDashboardRow[]> {
    if (filter.owner && filter.workspace) throw invalid('pass --owner or --workspace, not both');
    const targets = await this.targets(filter);
    const rows: AdminDashboardRow[] = [];
    for (const target of targets) {
      for (const d of await listAllDashboards(this.store, ownerOf(target))) {
        rows.push({
          owner: subdomainOf(target),
          kind: target.kind,
          slug: d.slug,
          name: d.name,
          visibility: d.visibility,
          url: canonicalUrl(this.settings, subdomainOf(target), d.slug),
          updated_at: d.updatedAt.toISOString(),
        });
      }
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
