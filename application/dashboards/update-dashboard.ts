import { inject, injectable } from 'inversify';
import { invalid } from '../../domain/errors.js';
import { applyMetadataPatch, isEmptyPatch, parseMetadataPatch } from '../../domain/metadata.js';
import { validateSlug } from '../../domain/names.js';
import { ownerOf } from '../../domain/scope.js';
import { connectionRefText, parseConnectionRef } from '../../domain/connection-ref.js';
import { Clock } from '../ports/clock.js';
import { ConnectionDirectory } from '../ports/connection-directory.js';
import { DashboardStore } from '../ports/dashboard-store.js';
import { Settings } from '../ports/settings.js';
import type { Principal } from '../ports/token-verifier.js';
import { ScopeResolver } from '../scope-resolver.js';
import { loadDashboard, noDashboardInTarget } from './lookup.js';
import { dashboardView, type DashboardView } from './views.js';

/** update_dashboard: metadata only (no new version), with the spec's metadata semantics. */
@injectable()
export class UpdateDashboard {
  constructor(
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(ScopeResolver) private readonly scopes: ScopeResolver,
    @inject(Settings) private readonly settings: Settings,
    @inject(Clock) private readonly clock: Clock,
    @inject(ConnectionDirectory) private readonly connections: ConnectionDirectory,
  ) {}

  async execute(principal: Principal, args: Record<string, unknown>): Promise<{ dashboard: DashboardView; changed: string[]; warnings: string[] }> {
    const target = await this.scopes.resolve(principal, args.workspace);
    const slug = validateSlug(args.slug);
    const patch = parseMetadataPatch(args);
    const connectionGiven = args.connection !== undefined && args.connection !== null;
    const connection = parseConnectionRef(args.connection);
    if (isEmptyPatch(patch) && !connectionGiven) {
      throw invalid('nothing to update: pass at least one of name, tags, chart, visibility or connection');
    }
    const warnings = connectionGiven ? (await this.connections.ensureUsable(principal, target, connection)).warnings : [];
    return this.store.transaction(ownerOf(target), async (tx) => {
      const { dashboard, current } = await loadDashboard(tx, target, slug, noDashboardInTarget(target, slug), false);
      const metadata = applyMetadataPatch(dashboard, patch);
      const changes = { ...metadata, connection: connectionGiven ? connectionRefText(connection) : dashboard.connection, updatedAt: this.clock.now() };
      await tx.updateDashboard(dashboard.id, changes);
      const changed = [...Object.keys(patch), ...(connectionGiven ? ['connection'] : [])];
      return { dashboard: dashboardView(this.settings, target, { ...dashboard, ...changes }, current), changed, warnings };
    });
  }
}
