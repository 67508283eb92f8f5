import { inject, injectable } from 'inversify';
import { DomainError, invalid } from '../../domain/errors.js';
import { validateSlug } from '../../domain/names.js';
import { ownerOf, type Target } from '../../domain/scope.js';
import { Clock } from '../ports/clock.js';
import { DashboardStore } from '../ports/dashboard-store.js';
import type { Principal } from '../ports/token-verifier.js';
import { ScopeResolver } from '../scope-resolver.js';
import { loadSummary, noDashboardInTarget, type CurrentDashboard, type DashboardRef } from '../dashboard-lookup.js';

/** rename_dashboard's input. */
export interface RenameCommand extends DashboardRef {
  newSlug: string;
}

/** The renamed dashboard (its new slug in the record) and the slug it left behind as an alias. */
export interface Renamed extends CurrentDashboard {
  target: Target;
  oldSlug: string;
}

/**
 * rename_dashboard: the old slug stays behind as an alias (301 to the new URL). Aliases point at the
 * dashboard, not at a slug, so a chain of renames always redirects in one hop.
 */
@injectable()
export class RenameDashboard {
  constructor(
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(ScopeResolver) private readonly scopes: ScopeResolver,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, command: RenameCommand): Promise<Renamed> {
    const target = await this.scopes.resolve(principal, command.workspace);
    const slug = validateSlug(command.slug);
    const newSlug = validateSlug(command.newSlug, 'new_slug');
    if (newSlug === slug) throw invalid(`new_slug is the same as slug ("${slug}")`);
    const owner = ownerOf(target);
    return this.store.transaction(owner, async (tx) => {
      const { dashboard, current } = await loadSummary(tx, target, slug, noDashboardInTarget(target, slug), false);
      if (await tx.findDashboard(owner, newSlug)) {
        throw new DomainError('conflict', `slug "${newSlug}" is already used by another dashboard`);
      }
      const alias = await tx.findAlias(owner, newSlug);
      if (alias && alias.dashboardId !== dashboard.id) {
        throw new DomainError('conflict', `slug "${newSlug}" is an alias left by renaming another dashboard; pick another slug`);
      }
      // Renaming back onto one's own alias reclaims it.
      if (alias) await tx.deleteAlias(owner, newSlug);
      const now = this.clock.now();
      await tx.updateDashboard(dashboard.id, { slug: newSlug, updatedAt: now });
      await tx.insertAlias({ owner, slug, dashboardId: dashboard.id });
      return { target, dashboard: { ...dashboard, slug: newSlug, updatedAt: now }, current, oldSlug: slug };
    });
  }
}
