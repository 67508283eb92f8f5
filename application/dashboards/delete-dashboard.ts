import { inject, injectable } from 'inversify';
import { validateSlug } from '../../domain/names.js';
import { ownerOf, subdomainOf } from '../../domain/scope.js';
import { canonicalUrl } from '../../domain/urls.js';
import { DashboardStore } from '../ports/dashboard-store.js';
import { Settings } from '../ports/settings.js';
import type { Principal } from '../ports/token-verifier.js';
import { ScopeResolver } from '../scope-resolver.js';
import { loadDashboard, noDashboardInTarget, type DashboardRef } from './lookup.js';

/** delete_dashboard: removes the dashboard with its versions and aliases. */
@injectable()
export class DeleteDashboard {
  constructor(
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(ScopeResolver) private readonly scopes: ScopeResolver,
    @inject(Settings) private readonly settings: Settings,
  ) {}

  async execute(principal: Principal, ref: DashboardRef): Promise<{ slug: string; url: string; versions_deleted: number }> {
    const target = await this.scopes.resolve(principal, ref.workspace);
    const slug = validateSlug(ref.slug);
    return this.store.transaction(ownerOf(target), async (tx) => {
      const { dashboard } = await loadDashboard(tx, target, slug, noDashboardInTarget(target, slug), false);
      const versions = await tx.listVersions(dashboard.id);
      await tx.deleteDashboard(dashboard.id);
      return { slug, url: canonicalUrl(this.settings, subdomainOf(target), slug), versions_deleted: versions.length };
    });
  }
}
