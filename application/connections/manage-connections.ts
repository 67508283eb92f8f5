import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { DomainError, invalid } from '../../domain/errors.js';
import { AccountStore } from '../ports/account-store.js';
import { Clock } from '../ports/clock.js';
import { WarehouseAddressPolicy } from '../ports/warehouse-address-policy.js';
import { ConnectionStore, type ConnectionRecord, type ConnectionScope } from '../ports/connection-store.js';
import { Warehouse } from '../ports/warehouse.js';

/** A connection as its users may see it: everything but the URL. */
export type ConnectionSummary = Omit<ConnectionRecord, 'url'>;

/** A connection a web-app user manages, with the slug of its workspace (null for a personal one). */
export type ListedConnection = ConnectionSummary & { workspaceSlug: string | null };

export function connectionSummary(c: ConnectionRecord): ConnectionSummary {
  return {
    id: c.id,
    ownerUserId: c.ownerUserId,
    workspaceId: c.workspaceId,
    label: c.label,
    kind: c.kind,
    status: c.status,
    lastTestedAt: c.lastTestedAt,
    lastError: c.lastError,
    createdAt: c.createdAt,
  };
}

const MAX_LABEL = 100;

/**
 * Creating, testing and removing warehouse connections: the web app and the admin CLI only, never MCP.
 * Creating needs the `pro` plan; a connection starts `pending` and becomes `active` after a successful
 * test (connect and `SELECT 1`), `failing` after a failed one. Where a URL may lead is the
 * WarehouseAddressPolicy's call, asked here at creation and by the Warehouse before every connection.
 */
@injectable()
export class ManageConnections {
  constructor(
    @inject(ConnectionStore) private readonly store: ConnectionStore,
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(Warehouse) private readonly warehouse: Warehouse,
    @inject(Clock) private readonly clock: Clock,
    @inject(WarehouseAddressPolicy) private readonly addresses: WarehouseAddressPolicy,
  ) {}

  async create(input: { ownerUserId: string; workspaceId: string | null; label: unknown; url: unknown }): Promise<ConnectionSummary> {
    const owner = await this.accounts.findUserById(input.ownerUserId);
    if (!owner) throw new DomainError('not_found', 'user not found');
    if (owner.plan !== 'pro') {
      throw new DomainError('plan_required', 'Warehouse connections need the pro plan. Upgrade the account, then add the connection again.');
    }
    if (input.workspaceId !== null) {
      const membership = await this.accounts.findMembership(input.workspaceId, owner.id);
      if (!membership) throw new DomainError('forbidden', 'only members of a workspace can add connections to it');
    }
    const label = typeof input.label === 'string' ? input.label.trim() : '';
    if (label === '' || label.length > MAX_LABEL) throw invalid(`label must be a non-empty string of at most ${MAX_LABEL} characters`);
    const url = parseWarehouseUrl(input.url);
    await this.refuseForbiddenAddress(url);
    const record: ConnectionRecord = {
      id: randomUUID(),
      ownerUserId: owner.id,
      workspaceId: input.workspaceId,
      label,
      kind: 'postgres',
      url,
      status: 'pending',
      lastTestedAt: null,
      lastError: null,
      createdAt: this.clock.now(),
    };
    const outcome = await this.tryConnection(url);
    // A role the warehouse refuses (a superuser, say) is the user's to change: refused, nothing stored.
    if (outcome.refusal) throw outcome.refusal;
    await this.store.insert(record);
    return this.record(record, outcome.error);
  }

  /**
   * A URL leading somewhere the service must not connect (its own database, a private network) is
   * refused before it is stored. A host that does not resolve is stored all the same: the connection
   * test then records it as failing, as for any unreachable warehouse.
   */
  private async refuseForbiddenAddress(url: string): Promise<void> {
    try {
      await this.addresses.check(url);
    } catch (err) {
      if (err instanceof DomainError && err.code === 'unavailable') return;
      throw err;
    }
  }

  async test(id: string): Promise<ConnectionSummary> {
    const connection = await this.found(id);
    if (connection.status === 'disabled') return connectionSummary(connection);
    return this.runTest(connection);
  }

  /** Takes a connection out of use (every query on it is refused) until it is enabled again. */
  async disable(id: string): Promise<ConnectionSummary> {
    const connection = await this.found(id);
    const outcome = { status: 'disabled' as const, testedAt: this.clock.now(), error: null };
    await this.store.recordTest(id, outcome);
    return connectionSummary({ ...connection, status: outcome.status, lastTestedAt: outcome.testedAt, lastError: null });
  }

  /** Puts a disabled connection back: it is tested at once and becomes active or failing. */
  async enable(id: string): Promise<ConnectionSummary> {
    return this.runTest(await this.found(id));
  }

  private async found(id: string): Promise<ConnectionRecord> {
    const connection = await this.store.findById(id);
    if (!connection) throw new DomainError('not_found', `connection ${id} not found`);
    return connection;
  }

  private async runTest(connection: ConnectionRecord): Promise<ConnectionSummary> {
    return this.record(connection, (await this.tryConnection(connection.url)).error);
  }

  /** The connection test's error text (null when it passed), and the error itself when it was a refusal. */
  private async tryConnection(url: string): Promise<{ error: string | null; refusal?: DomainError }> {
    try {
      await this.warehouse.test(url);
      return { error: null };
    } catch (err) {
      const refusal = err instanceof DomainError && err.code === 'forbidden' ? err : undefined;
      return { error: err instanceof Error ? err.message : String(err), refusal };
    }
  }

  private async record(connection: ConnectionRecord, error: string | null): Promise<ConnectionSummary> {
    const outcome = { status: error === null ? ('active' as const) : ('failing' as const), testedAt: this.clock.now(), error };
    await this.store.recordTest(connection.id, outcome);
    return connectionSummary({ ...connection, ...outcome, lastTestedAt: outcome.testedAt, lastError: error });
  }

  async list(scope: ConnectionScope): Promise<ConnectionSummary[]> {
    return (await this.store.list(scope)).map(connectionSummary);
  }

  async listAll(): Promise<ConnectionSummary[]> {
    return (await this.store.listAll()).map(connectionSummary);
  }

  /** The connections a web-app user manages: their personal ones and those of their workspaces. */
  async listForUser(userId: string): Promise<ListedConnection[]> {
    const personal = (await this.store.list({ kind: 'personal', userId })).map((c): ListedConnection => ({ ...connectionSummary(c), workspaceSlug: null }));
    const shared: ListedConnection[] = [];
    for (const { workspace } of await this.accounts.listMemberships(userId)) {
      for (const c of await this.store.list({ kind: 'workspace', workspaceId: workspace.id })) {
        shared.push({ ...connectionSummary(c), workspaceSlug: workspace.slug });
      }
    }
    return [...personal, ...shared];
  }

  /** May this user test or remove it: its creator, or an admin of its workspace. */
  async mayManage(userId: string, id: string): Promise<ConnectionRecord | null> {
    const connection = await this.store.findById(id);
    if (!connection) return null;
    if (connection.ownerUserId === userId) return connection;
    if (connection.workspaceId !== null) {
      const membership = await this.accounts.findMembership(connection.workspaceId, userId);
      if (membership?.role === 'admin') return connection;
    }
    return null;
  }

  async remove(id: string): Promise<boolean> {
    return this.store.delete(id);
  }
}

export function parseWarehouseUrl(value: unknown): string {
  if (typeof value !== 'string' || value.trim() === '') throw invalid('url must be a postgres:// connection URL');
  let parsed: URL;
  try {
    parsed = new URL(value.trim());
  } catch {
    throw invalid('url must be a postgres:// connection URL');
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:') throw invalid('url must be a postgres:// connection URL');
  if (!parsed.hostname) throw invalid('url must name a host');
  return value.trim();
}
