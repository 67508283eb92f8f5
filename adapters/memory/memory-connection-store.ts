import type { ConnectionRecord, ConnectionScope, ConnectionStatus, ConnectionStore } from '../../application/ports/connection-store.js';

/** In-process connections (tests, single-process tools); copies in and out so callers can't mutate state. */
export class MemoryConnectionStore implements ConnectionStore {
  private readonly rows = new Map<string, ConnectionRecord>();

  async insert(record: ConnectionRecord): Promise<void> {
    if (this.rows.has(record.id)) throw new Error(`connection ${record.id} exists`);
    this.rows.set(record.id, { ...record });
  }

  async findById(id: string): Promise<ConnectionRecord | null> {
    const row = this.rows.get(id.toLowerCase());
    return row ? { ...row } : null;
  }

  async list(scope: ConnectionScope): Promise<ConnectionRecord[]> {
    return this.sorted().filter((r) =>
      scope.kind === 'personal' ? r.ownerUserId === scope.userId && r.workspaceId === null : r.workspaceId === scope.workspaceId,
    );
  }

  async listAll(): Promise<ConnectionRecord[]> {
    return this.sorted();
  }

  async recordTest(id: string, outcome: { status: ConnectionStatus; testedAt: Date; error: string | null }): Promise<void> {
    const row = this.rows.get(id);
    if (row) Object.assign(row, { status: outcome.status, lastTestedAt: outcome.testedAt, lastError: outcome.error });
  }

  async delete(id: string): Promise<boolean> {
    return this.rows.delete(id.toLowerCase());
  }

  private sorted(): ConnectionRecord[] {
    return [...this.rows.values()]
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : 1))
      .map((r) => ({ ...r }));
  }
}
