import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { DomainError } from '../../domain/errors.js';
import type { BindValue } from '../../domain/spec-params.js';
import type { SqlValidator } from '../../application/ports/sql-validator.js';
import {
  DEFAULT_RUN_LIMITS,
  type QueryResult,
  type RunLimits,
  type SqlTarget,
  type TableInfo,
  type Warehouse,
} from '../../application/ports/warehouse.js';
import { privilegedWarehouseRole, SERVER_ROLES, serviceOwnDatabase } from '../../domain/warehouse-refusals.js';
import { byteCapped, cappedRows, cellCapRefusal, DEFAULT_BYTE_CAPS, type ByteCaps } from './cells.js';

const CONNECT_TIMEOUT_MS = 5_000;
/** SQLSTATE classes that mean "could not reach or log in", not "your SQL is wrong". */
const CONNECTION_CLASSES = ['08', '28', '3D', '57P03'];

/**
 * PostgreSQL warehouses: a fresh client per run (no pooled sessions a query could leave settings in),
 * every statement inside `BEGIN READ ONLY` with a local statement timeout, results capped by wrapping
 * the statement in a LIMIT. Statements go through the extended protocol (a named statement), which
 * refuses a second statement smuggled into the text. Every connection first checks which server and
 * role it reached (refuseUnsafeServer) before any work runs on it.
 */
export class PgWarehouse implements Warehouse {
  private readonly gate: Gate;

  /**
   * `serviceServer`: the system identifier of the cluster the service's own database is on (null when it
   * has none to tell): a warehouse on that cluster is refused however it was reached. `caps`: bytes one
   * cell and one result may bring back.
   */
  constructor(
    private readonly validator: SqlValidator,
    serviceServer: () => Promise<string | null> = async () => null,
    private readonly caps: ByteCaps = DEFAULT_BYTE_CAPS,
  ) {
    this.gate = (client) => refuseUnsafeServer(client, serviceServer);
  }

  open(url: string): SqlTarget {
    return new PgTarget(url, this.validator, this.gate, this.caps);
  }

  async test(url: string): Promise<void> {
    await withClient(url, DEFAULT_RUN_LIMITS.timeoutMs, this.gate, async (client) => {
      await client.query('SELECT 1');
    });
  }
}

/** What every connection passes before any work runs on it. */
type Gate = (client: pg.Client) => Promise<void>;

class PgTarget implements SqlTarget {
  constructor(
    private readonly url: string,
    private readonly validator: SqlValidator,
    private readonly gate: Gate,
    private readonly caps: ByteCaps,
  ) {}

  /** Described first (`LIMIT 0`), so the database can measure each result column's cells before sending them. */
  async run(sql: string, limits: Partial<RunLimits> = {}, bound: readonly BindValue[] = []): Promise<QueryResult> {
    const values = [...bound];
    const { rowCap, timeoutMs } = { ...DEFAULT_RUN_LIMITS, ...limits };
    const { statement } = await this.validator.validate(sql);
    return withClient(this.url, timeoutMs, this.gate, (client) =>
      readOnly(client, timeoutMs, async () => {
        const described = await client.query({ name: `d${randomUUID()}`, text: `SELECT * FROM (\n${statement}\n) AS dashpub_query LIMIT 0`, values });
        const columns = await typeNames(client, described.fields);
        const result = await client.query({ name: `q${randomUUID()}`, text: byteCapped(statement, columns.length, rowCap, this.caps), values }).catch((err: unknown) => {
          throw cellCapRefusal(err instanceof Error ? err.message : '', columns, this.caps) ?? err;
        });
        return { columns, ...cappedRows(result.rows as Array<Record<string, unknown>>, columns, rowCap, this.caps) };
      }),
    );
  }

  async explain(sql: string, bound: readonly BindValue[] = []): Promise<void> {
    const { statement } = await this.validator.validate(sql);
    await withClient(this.url, DEFAULT_RUN_LIMITS.timeoutMs, this.gate, (client) =>
      readOnly(client, DEFAULT_RUN_LIMITS.timeoutMs, () => client.query({ name: `e${randomUUID()}`, text: `EXPLAIN ${statement}`, values: [...bound] })),
    );
  }

  async introspect(): Promise<TableInfo[]> {
    return withClient(this.url, DEFAULT_RUN_LIMITS.timeoutMs, this.gate, (client) =>
      readOnly(client, DEFAULT_RUN_LIMITS.timeoutMs, async () => {
        const { rows } = await client.query<{
          table_schema: string;
          table_name: string;
          table_type: string;
          column_name: string;
          data_type: string;
          is_nullable: string;
        }>(
          `SELECT c.table_schema, c.table_name, t.table_type, c.column_name, c.data_type, c.is_nullable
             FROM information_schema.columns c
             JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
            WHERE c.table_schema NOT IN ('pg_catalog', 'information_schema') AND c.table_schema NOT LIKE 'pg\\_%'
            ORDER BY c.table_schema, c.table_name, c.ordinal_position
            LIMIT 20000`,
        );
        const tables = new Map<string, TableInfo>();
        for (const row of rows) {
          const key = `${row.table_schema}.${row.table_name}`;
          let table = tables.get(key);
          if (!table) {
            table = { schema: row.table_schema, name: row.table_name, kind: row.table_type === 'VIEW' ? 'view' : 'table', columns: [] };
            tables.set(key, table);
          }
          table.columns.push({ name: row.column_name, type: row.data_type, nullable: row.is_nullable === 'YES' });
        }
        return [...tables.values()];
      }),
    );
  }
}

async function withClient<T>(url: string, timeoutMs: number, gate: Gate, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({
    connectionString: url,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    // A backstop should the server ignore SET LOCAL (a pooler in transaction mode, say).
    query_timeout: timeoutMs + 5_000,
    application_name: 'dashpub',
  });
  client.on('error', () => {}); // a dying connection also rejects the query in flight, which is where it is reported
  try {
    await client.connect();
  } catch (err) {
    throw new DomainError('unavailable', `could not connect to the warehouse: ${reason(err)}`);
  }
  try {
    await gate(client);
    return await work(client);
  } catch (err) {
    if (err instanceof DomainError) throw err;
    const code = (err as { code?: string }).code ?? '';
    if (code === '57014') throw new DomainError('invalid_argument', `query cancelled: it ran longer than ${Math.round(timeoutMs / 1000)} s`);
    if (CONNECTION_CLASSES.some((c) => code.startsWith(c)) || !code) {
      throw new DomainError('unavailable', `the warehouse failed: ${reason(err)}`);
    }
    throw new DomainError('invalid_argument', `query failed: ${reason(err)}`);
  } finally {
    await client.end().catch(() => {}); // closing a connection that already failed; the failure itself was thrown above
  }
}

/**
 * Refuses the service's own cluster, by its system identifier: whatever address, port, proxy or DNS
 * answer led there. Refuses a login role that is, or may become (SET ROLE), a superuser or a member of
 * the server roles: such a role reads the server's files, and so every other database on it. Checked on
 * every connection, since a role's grants can change after the connection test.
 */
async function refuseUnsafeServer(client: pg.Client, serviceServer: () => Promise<string | null>): Promise<void> {
  const own = await serviceServer();
  if (own !== null && (await systemIdentifier(client)) === own) throw serviceOwnDatabase();
  const { rows } = await client.query<{ role: string; superuser: boolean; memberships: string[] }>(
    `SELECT session_user::text AS role,
            EXISTS (SELECT 1 FROM pg_catalog.pg_roles r WHERE r.rolsuper AND pg_catalog.pg_has_role(session_user, r.oid, 'MEMBER')) AS superuser,
            ARRAY(SELECT r.rolname::text FROM pg_catalog.pg_roles r
                   WHERE r.rolname = ANY($1::text[]) AND pg_catalog.pg_has_role(session_user, r.oid, 'MEMBER')
                   ORDER BY r.rolname) AS memberships`,
    [[...SERVER_ROLES]],
  );
  const { role, superuser, memberships } = rows[0]!;
  if (superuser || memberships.length > 0) throw privilegedWarehouseRole(role, superuser, memberships);
}

/** A cluster's identity, the same for every database and address of it; any role may read it. */
export const SYSTEM_IDENTIFIER_SQL = 'SELECT system_identifier::text AS id FROM pg_catalog.pg_control_system()';

/** The cluster's system identifier, or null where the server has none to tell (not PostgreSQL itself). */
async function systemIdentifier(client: pg.Client): Promise<string | null> {
  try {
    const { rows } = await client.query<{ id: string }>(SYSTEM_IDENTIFIER_SQL);
    return rows[0]?.id ?? null;
  } catch {
    return null; // a PostgreSQL-compatible server without the function: the address check and the role check remain
  }
}

async function readOnly<T>(client: pg.Client, timeoutMs: number, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN READ ONLY');
  try {
    await client.query(`SET LOCAL statement_timeout = ${Math.max(1, Math.floor(timeoutMs))}`);
    return await work();
  } finally {
    await client.query('ROLLBACK').catch(() => {}); // a read-only transaction: a failed rollback loses nothing, the connection is closed next
  }
}

async function typeNames(client: pg.Client, fields: Array<{ name: string; dataTypeID: number }>) {
  const oids = [...new Set(fields.map((f) => f.dataTypeID))];
  const { rows } = await client.query<{ oid: number; name: string }>(
    'SELECT oid::int AS oid, format_type(oid, NULL) AS name FROM pg_catalog.pg_type WHERE oid = ANY($1::oid[])',
    [oids],
  );
  const names = new Map(rows.map((r) => [r.oid, r.name]));
  return fields.map((f) => ({ name: f.name, type: names.get(f.dataTypeID) ?? 'unknown' }));
}

/** The database's own message, without anything that could carry the connection string. */
function reason(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  return message.replace(/postgres(ql)?:\/\/\S+/gi, '<url>').slice(0, 500);
}
