export type ConnectionStatus = 'pending' | 'active' | 'failing' | 'disabled';
export const CONNECTION_STATUSES: readonly ConnectionStatus[] = ['pending', 'active', 'failing', 'disabled'];

/** A warehouse connection. `url` is plaintext here; adapters keep it encrypted at rest. */
export interface ConnectionRecord {
  id: string;
  /** The immutable scope, fixed at creation: the owner and, for a workspace connection, its workspace. */
  ownerUserId: string;
  workspaceId: string | null;
  label: string;
  kind: 'postgres';
  url: string;
  status: ConnectionStatus;
  lastTestedAt: Date | null;
  lastError: string | null;
  createdAt: Date;
}

/** Which connections a caller sees from one target: a user's personal ones, or one workspace's. */
export type ConnectionScope = { kind: 'personal'; userId: string } | { kind: 'workspace'; workspaceId: string };

export const ConnectionStore = Symbol.for('ConnectionStore');
export interface ConnectionStore {
  insert(record: ConnectionRecord): Promise<void>;
  findById(id: string): Promise<ConnectionRecord | null>;
  /** Oldest first. */
  list(scope: ConnectionScope): Promise<ConnectionRecord[]>;
  listAll(): Promise<ConnectionRecord[]>;
  recordTest(id: string, outcome: { status: ConnectionStatus; testedAt: Date; error: string | null }): Promise<void>;
  /** True when a row was removed. */
  delete(id: string): Promise<boolean>;
}
