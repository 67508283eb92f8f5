/**
 * Worker thread of the `self` sandbox: one PGlite database holding one owner's rows at a time (a warm
 * sandbox). A request for another owner closes it and restores a brand-new database from the template,
 * so a query never runs where another owner's rows were; a request for the same owner with changed data
 * reloads the tables. Runs off the main thread because PGlite blocks its thread while a query runs; the
 * parent terminates the worker on timeout.
 */
import { readFile } from 'node:fs/promises';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { DomainError } from '../../domain/errors.js';
import { byteCapped, cappedRows, cellCapRefusal, type ByteCaps } from './cells.js';

export const METRICS_SCHEMA = `
  CREATE TABLE dashboards (slug text NOT NULL, name text NOT NULL, visibility text NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL);
  CREATE TABLE daily_views (slug text NOT NULL, day date NOT NULL, views bigint NOT NULL);
  CREATE TABLE publishes (slug text NOT NULL, day date NOT NULL, count integer NOT NULL);
  CREATE TABLE refresh_runs (slug text NOT NULL, started_at timestamptz NOT NULL, outcome text NOT NULL, duration_ms integer NOT NULL, rows integer NOT NULL);
`;
const TABLES = ['dashboards', 'daily_views', 'publishes', 'refresh_runs'] as const;

export interface SandboxRequest {
  op: 'run' | 'explain';
  /** Whose rows, and which version of them (a digest of the rows); `tables` is sent when the worker holds another. */
  owner: string;
  version: string;
  tables?: Record<(typeof TABLES)[number], unknown[]>;
  statement: string;
  /** Bound to the statement's `$n` parameters. */
  values: Array<string | null>;
  rowCap: number;
  caps: ByteCaps;
}
export type SandboxReply = (
  | { ok: true; columns: Array<{ name: string; type: string }>; rows: unknown[]; truncated: boolean }
  | { ok: false; message: string; /** the message is the service's own, complete refusal */ own?: boolean }
) & {
  /** The owner and version the worker holds afterwards (null: nothing loaded). */
  loaded: { owner: string; version: string } | null;
  /** The query grew the database's memory past what a warm sandbox should keep: end this worker. */
  recycle?: boolean;
};
/**
 * What workers share: the template data directory (shared memory, not a copy each) and PGlite's compiled
 * WASM module (its code compiled once). A worker that had to make one posts it once to the parent.
 */
export interface WorkerData {
  template?: Uint8Array;
  wasm?: WebAssembly.Module;
}

/** A few tables of one owner's rows need few buffers; PGlite's default (128 MB) would be most of each warm sandbox's memory. */
const START_PARAMS = [...PGlite.defaultStartParams, '-c', 'shared_buffers=8MB'];
const shared = (workerData ?? {}) as WorkerData;
let template: Blob | undefined = shared.template ? new Blob([shared.template as Uint8Array<ArrayBuffer>]) : undefined;
let wasm: WebAssembly.Module | undefined = shared.wasm;

async function wasmModule(): Promise<WebAssembly.Module> {
  if (!wasm) {
    wasm = await WebAssembly.compile(await readFile(new URL('./pglite.wasm', import.meta.resolve('@electric-sql/pglite'))));
    parentPort?.postMessage({ wasm });
  }
  return wasm;
}
let db: PGlite | undefined;
let loaded: { owner: string; version: string } | null = null;

async function fresh(): Promise<PGlite> {
  if (!template) {
    const seed = new PGlite({ startParams: START_PARAMS, pgliteWasmModule: await wasmModule() });
    await seed.exec(METRICS_SCHEMA);
    template = await seed.dumpDataDir('none');
    await seed.close();
    const bytes = new Uint8Array(new SharedArrayBuffer(template.size));
    bytes.set(new Uint8Array(await template.arrayBuffer()));
    parentPort?.postMessage({ template: bytes });
  }
  const next = new PGlite({ loadDataDir: template, startParams: START_PARAMS, pgliteWasmModule: await wasmModule() });
  await next.waitReady;
  return next;
}

/** The owner's rows in this worker's database, restoring a new database when it held someone else's. */
async function load(request: SandboxRequest): Promise<PGlite> {
  if (!db || loaded?.owner !== request.owner) {
    loaded = null;
    await db?.close().catch(() => {}); // an in-memory database of another owner: nothing to keep
    db = undefined;
    db = await fresh();
  }
  if (loaded?.version !== request.version) {
    if (!request.tables) throw new Error('the sandbox lost its rows; try again');
    loaded = null;
    await db.exec(`TRUNCATE ${TABLES.join(', ')}`);
    for (const table of TABLES) {
      const rows = request.tables[table] ?? [];
      if (rows.length) await db.query(`INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, $1::json)`, [JSON.stringify(rows)]);
    }
    loaded = { owner: request.owner, version: request.version };
  }
  return db;
}

async function query(db: PGlite, request: SandboxRequest) {
  const described = await db.describeQuery(request.statement);
  const values = request.values;
  const fields = described.resultFields;
  const oids = [...new Set(fields.map((f) => f.dataTypeID))];
  const types = await db.query<{ oid: number; name: string }>(
    'SELECT oid::int AS oid, format_type(oid, NULL) AS name FROM pg_catalog.pg_type WHERE oid = ANY($1::oid[])',
    [oids],
  );
  const names = new Map(types.rows.map((r) => [r.oid, r.name]));
  const columns = fields.map((f) => ({ name: f.name, type: names.get(f.dataTypeID) ?? 'unknown' }));
  const result = await db
    .query<Record<string, unknown>>(byteCapped(request.statement, columns.length, request.rowCap, request.caps), values)
    .catch((err: unknown) => {
      throw cellCapRefusal(err instanceof Error ? err.message : '', columns, request.caps) ?? err;
    });
  return { columns, ...cappedRows(result.rows, columns, request.rowCap, request.caps) };
}

async function handle(request: SandboxRequest, started: () => void): Promise<SandboxReply> {
  try {
    const db = await load(request);
    started();
    await db.exec('BEGIN READ ONLY');
    try {
      if (request.op === 'explain') {
        await db.query(`EXPLAIN ${request.statement}`, request.values);
        return { ok: true, columns: [], rows: [], truncated: false, loaded };
      }
      return { ok: true, ...(await query(db, request)), loaded };
    } finally {
      await db.exec('ROLLBACK').catch(() => {}); // read-only: nothing to undo; a broken database is replaced on the next error
    }
  } catch (err) {
    if (err instanceof DomainError) return { ok: false, message: err.message, own: true, loaded, recycle: true };
    return { ok: false, message: err instanceof Error ? err.message : String(err), loaded };
  }
}

if (parentPort) {
  const port = parentPort;
  let chain = Promise.resolve();
  port.on('message', (message: { id: number; request: SandboxRequest }) => {
    const started = () => port.postMessage({ id: message.id, started: true });
    chain = chain.then(async () => port.postMessage({ id: message.id, reply: await handle(message.request, started) }));
  });
}
