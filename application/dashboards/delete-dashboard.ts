import { inject, injectable } from 'inversify';
import { validateSlug } from '../../domain/names.js';
import { ownerOf, type Target } from '../../domain/scope.js';
import { DashboardStore } from '../ports/dashboard-store.js';
import type { Principal } from '../ports/token-verifier.js';
import { ScopeResolver } from '../scope-resolver.js';
import { loadDashboard, noDashboardInTarget, type DashboardRef } from '../dashboard-lookup.js';

/** What a delete removed: the dashboard's slug and how many versions went with it. */
export interface Deleted {
  target: Target;
  slug: string;
  versionsDeleted: number;
}

/** delete_dashboard: removes the dashboard with its versions and aliases. */
@injectable()
export class DeleteDashboard {
  constructor(
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(ScopeResolver) private readonly scopes: ScopeResolver,
  ) {}

  async execute(principal: Principal, ref: DashboardRef): Promise<Deleted> {
    const target = await this.scopes.resolve(principal, ref.workspace);
    const slug = validateSlug(ref.slug);
    return this.store.transaction(ownerOf(target), async (tx) => {
      const { dashboard } = await loadDashboard(tx, target, slug, noDashboardInTarget(target, slug), false);
      const versions = await tx.listVersions(dashboard.id);
      await tx.deleteDashboard(dashboard.id);
      return { target, slug, versionsDeleted: versions.length };
    });
  }
}
