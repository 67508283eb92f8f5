import { inject, injectable } from 'inversify';
import { invalid } from '../../domain/errors.js';
import { applyMetadataPatch, isEmptyPatch, parseMetadataPatch } from '../../domain/metadata.js';
import { validateSlug } from '../../domain/names.js';
import { ownerOf, type Target } from '../../domain/scope.js';
import { connectionRefText, parseConnectionRef } from '../../domain/connection-ref.js';
import { Clock } from '../ports/clock.js';
import { ConnectionDirectory } from '../ports/connection-directory.js';
import { DashboardStore } from '../ports/dashboard-store.js';
import type { Principal } from '../ports/token-verifier.js';
import { ScopeResolver } from '../scope-resolver.js';
import { loadSummary, noDashboardInTarget, type CurrentDashboard, type DashboardRef } from '../dashboard-lookup.js';

/**
 * Metadata a publish or update may change; omitted or null keeps the current value. `name`, `chart` and
 * `connection` arrive as sent: the metadata rules (domain/metadata.ts) and the connection parser
 * (domain/connection-ref.ts) word their refusals whatever the value's type.
 */
export interface MetadataInput {
  name?: unknown;
  tags?: string[] | null;
  chart?: unknown;
  visibility?: string | null;
  connection?: unknown;
}

/** The dashboard as updated, the fields the call changed, and the connection's warnings. */
export interface Updated extends CurrentDashboard {
  target: Target;
  changed: string[];
  warnings: string[];
}

/** update_dashboard: metadata only (no new version), with the spec's metadata semantics. */
@injectable()
export class UpdateDashboard {
  constructor(
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(ScopeResolver) private readonly scopes: ScopeResolver,
    @inject(Clock) private readonly clock: Clock,
    @inject(ConnectionDirectory) private readonly connections: ConnectionDirectory,
  ) {}

  async execute(principal: Principal, command: DashboardRef & MetadataInput): Promise<Updated> {
    const target = await this.scopes.resolve(principal, command.workspace);
    const slug = validateSlug(command.slug);
    const patch = parseMetadataPatch({ name: command.name, chart: command.chart, tags: command.tags, visibility: command.visibility });
    const connectionGiven = command.connection !== undefined && command.connection !== null;
    const connection = parseConnectionRef(command.connection);
    if (isEmptyPatch(patch) && !connectionGiven) {
      throw invalid('nothing to update: pass at least one of name, tags, chart, visibility or connection');
    }
    const warnings = connectionGiven ? (await this.connections.ensureUsable(principal, target, connection)).warnings : [];
    return this.store.transaction(ownerOf(target), async (tx) => {
      const { dashboard, current } = await loadSummary(tx, target, slug, noDashboardInTarget(target, slug), false);
      const metadata = applyMetadataPatch(dashboard, patch);
      const changes = { ...metadata, connection: connectionGiven ? connectionRefText(connection) : dashboard.connection, updatedAt: this.clock.now() };
      await tx.updateDashboard(dashboard.id, changes);
      const changed = [...Object.keys(patch), ...(connectionGiven ? ['connection'] : [])];
      return { target, dashboard: { ...dashboard, ...changes }, current, changed, warnings };
    });
  }
}
