import { inject, injectable } from 'inversify';
import { connectionNotActive, connectionNotFound, connectionUnverifiable, type ConnectionRef } from '../../domain/connection-ref.js';
import { DomainError } from '../../domain/errors.js';
import type { OwnerRef, Target } from '../../domain/scope.js';
import type { ConnectionDirectory, UsableConnection } from '../ports/connection-directory.js';
import { ConnectionStore, type ConnectionRecord } from '../ports/connection-store.js';
import type { Principal } from '../ports/token-verifier.js';
import { SelfMetrics, Warehouse, type SqlTarget } from '../ports/warehouse.js';
import { ManageConnections } from './manage-connections.js';

export const personalConnectionOnWorkspaceWarning = (label: string) =>
  `the connection "${label}" belongs to your personal account, so this workspace dashboard can never refresh: ` +
  'scheduled and on-demand refreshes run only on connections of the dashboard\'s own workspace.';

/** Why a stored dashboard's connection cannot run a refresh (recorded on the failed run). */
export class RefreshConnectionError extends DomainError {}

/**
 * Step two of connection resolution and the one place deciding which SQL target a call or a refresh
 * runs on. A personal target uses the caller's personal connections; a workspace target uses the
 * connections scoped to that workspace (created by any member), and may bind a personal connection of
 * the caller only with the warning that it can never refresh.
 */
@injectable()
export class ConnectionAccess implements ConnectionDirectory {
  constructor(
    @inject(ConnectionStore) private readonly store: ConnectionStore,
    @inject(Warehouse) private readonly warehouse: Warehouse,
    @inject(SelfMetrics) private readonly self: SelfMetrics,
    @inject(ManageConnections) private readonly manage: ManageConnections,
  ) {}

  async ensureUsable(principal: Principal, target: Target, ref: ConnectionRef): Promise<UsableConnection> {
    if (ref === 'self') return { label: 'self', warnings: [], open: () => this.self.open(ownerOfTarget(target)) };
    const { connection, warnings } = await this.usable(principal, target, ref.id);
    return { label: connection.label, warnings, open: () => this.warehouse.open(connection.url) };
  }

  /** The SQL target a tool call (introspect_schema, validate_cube_sql) runs on. */
  async sqlTarget(principal: Principal, target: Target, ref: ConnectionRef): Promise<{ sql: SqlTarget; label: string; warnings: string[] }> {
    const { label, warnings, open } = await this.ensureUsable(principal, target, ref);
    return { sql: open(), label, warnings };
  }

  /** The SQL target a refresh of a stored dashboard runs on; throws RefreshConnectionError saying why not. */
  async forDashboard(owner: OwnerRef, connectionText: string): Promise<SqlTarget> {
    if (connectionText === 'self') return this.self.open(owner);
    let connection: ConnectionRecord | null;
    try {
      connection = await this.store.findById(connectionText);
    } catch (err) {
      throw connectionUnverifiable(err instanceof Error ? err.message : String(err));
    }
    if (!connection) throw new RefreshConnectionError('not_found', `the connection ${connectionText} no longer exists`);
    if (owner.kind === 'workspace' && connection.workspaceId !== owner.id) {
      throw new RefreshConnectionError('scope_refused', personalConnectionOnWorkspaceWarning(connection.label));
    }
    if (owner.kind === 'user' && (connection.workspaceId !== null || connection.ownerUserId !== owner.id)) {
      throw new RefreshConnectionError('scope_refused', `the connection "${connection.label}" is not one of the owner's personal connections`);
    }
    if (connection.status === 'failing') {
      // A warehouse that was down when last tested may be back: a refresh tries it again rather than
      // leaving every scheduled run refused until someone re-tests it by hand.
      const retested = await this.manage.test(connection.id);
      if (retested.status === 'active') return this.warehouse.open(connection.url);
    }
    if (connection.status !== 'active') throw connectionNotActive(connection.label, connection.status);
    return this.warehouse.open(connection.url);
  }

  private async usable(principal: Principal, target: Target, id: string): Promise<{ connection: ConnectionRecord; warnings: string[] }> {
    let connection: ConnectionRecord | null;
    try {
      connection = await this.store.findById(id);
    } catch (err) {
      throw connectionUnverifiable(err instanceof Error ? err.message : String(err));
    }
    if (!connection || connection.kind !== 'postgres') throw connectionNotFound(id);
    const warnings: string[] = [];
    const ownPersonal = connection.workspaceId === null && connection.ownerUserId === principal.userId;
    if (target.kind === 'personal') {
      if (!ownPersonal) throw connectionNotFound(id);
    } else if (connection.workspaceId !== target.workspaceId) {
      if (!ownPersonal) throw connectionNotFound(id);
      warnings.push(personalConnectionOnWorkspaceWarning(connection.label));
    }
    if (connection.status !== 'active') throw connectionNotActive(connection.label, connection.status);
    return { connection, warnings };
  }
}

export function ownerOfTarget(target: Target): OwnerRef {
  return target.kind === 'personal' ? { kind: 'user', id: target.userId } : { kind: 'workspace', id: target.workspaceId };
}
