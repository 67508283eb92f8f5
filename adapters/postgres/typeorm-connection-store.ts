import type { DataSource } from 'typeorm';
import type { ConnectionRecord, ConnectionScope, ConnectionStatus, ConnectionStore } from '../../application/ports/connection-store.js';
import { isUuid } from '../../domain/ids.js';
import type { SecretBox } from '../crypto/secret-box.js';

interface Row {
  id: string;
  owner_user_id: string;
  workspace_id: string | null;
  label: string;
  kind: string;
  url_sealed: string;
  status: string;
  last_tested_at: Date | null;
  last_error: string | null;
  created_at: Date;
}

const COLUMNS = 'id, owner_user_id, workspace_id, label, kind, url_sealed, status, last_tested_at, last_error, created_at';

/** connections, with the URL sealed by the SecretBox on the way in and opened on the way out. */
export class TypeormConnectionStore implements ConnectionStore {
  constructor(
    private readonly dataSource: DataSource,
    private readonly box: SecretBox,
  ) {}

  async insert(r: ConnectionRecord): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO connections (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
      [r.id, r.ownerUserId, r.workspaceId, r.label, r.kind, this.box.seal(r.url), r.status, r.lastTestedAt, r.lastError, r.createdAt],
    );
  }

  async findById(id: string): Promise<ConnectionRecord | null> {
    if (!isUuid(id)) return null;
    const rows: Row[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM connections WHERE id = $1`, [id]);
    return rows[0] ? this.record(rows[0]) : null;
  }

  async list(scope: ConnectionScope): Promise<ConnectionRecord[]> {
    const rows: Row[] =
      scope.kind === 'personal'
        ? await this.dataSource.query(
            `SELECT ${COLUMNS} FROM connections WHERE owner_user_id = $1 AND workspace_id IS NULL ORDER BY created_at, id`,
            [scope.userId],
          )
        : await this.dataSource.query(`SELECT ${COLUMNS} FROM connections WHERE workspace_id = $1 ORDER BY created_at, id`, [scope.workspaceId]);
    return rows.map((r) => this.record(r));
  }

  async listAll(): Promise<ConnectionRecord[]> {
    const rows: Row[] = await this.dataSource.query(`SELECT ${COLUMNS} FROM connections ORDER BY created_at, id`);
    return rows.map((r) => this.record(r));
  }

  async recordTest(id: string, outcome: { status: ConnectionStatus; testedAt: Date; error: string | null }): Promise<void> {
    await this.dataSource.query(`UPDATE connections SET status = $2, last_tested_at = $3, last_error = $4 WHERE id = $1`, [
      id,
      outcome.status,
      outcome.testedAt,
      outcome.error,
    ]);
  }

  async delete(id: string): Promise<boolean> {
    if (!isUuid(id)) return false;
    const [, count] = (await this.dataSource.query(`DELETE FROM connections WHERE id = $1`, [id])) as [unknown, number];
    return count > 0;
  }

  private record(r: Row): ConnectionRecord {
    return {
      id: r.id,
      ownerUserId: r.owner_user_id,
      workspaceId: r.workspace_id,
      label: r.label,
      kind: 'postgres',
      url: this.box.open(r.url_sealed),
      status: r.status as ConnectionStatus,
      lastTestedAt: r.last_tested_at,
      lastError: r.last_error,
      createdAt: r.created_at,
    };
  }
}
