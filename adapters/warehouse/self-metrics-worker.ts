/**
 * Worker thread of the `self` sandbox. Every request gets a brand-new PGlite database (restored from a
 * template data directory, ~0.3 s), holding only the rows it was sent, and is closed afterwards, so a
 * query can never see rows of an earlier request, whatever it calls. Runs off the main thread because
 * PGlite blocks its thread while a query runs; the parent terminates the worker on timeout.
 */
import { parentPort } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import { capped, toRows } from './cells.js';

export const METRICS_SCHEMA = `
  CREATE TABLE dashboards (slug text NOT NULL, name text NOT NULL, visibility text NOT NULL, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL);
  CREATE TABLE daily_views (slug text NOT NULL, day date NOT NULL, views bigint NOT NULL);
  CREATE TABLE publishes (slug text NOT NULL, day date NOT NULL, count integer NOT NULL);
  CREATE TABLE refresh_runs (slug text NOT NULL, started_at timestamptz NOT NULL, outcome text NOT NULL, duration_ms integer NOT NULL, rows integer NOT NULL);
`;
const TABLES = ['dashboards', 'daily_views', 'publishes', 'refresh_runs'] as const;

export interface SandboxRequest {
  op: 'run' | 'explain';
  tables: Record<(typeof TABLES)[number], unknown[]>;
  statement: string;
  rowCap: number;
}
export type SandboxReply =
  | { ok: true; columns: Array<{ name: string; type: string }>; rows: unknown[]; truncated: boolean }
  | { ok: false; message: string };

let template: Blob | undefined;
let spare: Promise<PGlite> | undefined;

async function fresh(): Promise<PGlite> {
  if (!template) {
    const seed = new PGlite();
    await seed.exec(METRICS_SCHEMA);
    template = await seed.dumpDataDir('none');
    await seed.close();
  }
  const db = new PGlite({ loadDataDir: template });
  await db.waitReady;
  return db;
}

async function handle(request: SandboxRequest): Promise<SandboxReply> {
  const db = await (spare ?? fresh());
  spare = undefined;
  try {
    for (const table of TABLES) {
      const rows = request.tables[table] ?? [];
      if (rows.length) await db.query(`INSERT INTO ${table} SELECT * FROM json_populate_recordset(NULL::${table}, $1::json)`, [JSON.stringify(rows)]);
    }
    await db.exec('BEGIN READ ONLY');
    try {
      if (request.op === 'explain') {
        await db.query(`EXPLAIN ${request.statement}`);
        return { ok: true, columns: [], rows: [], truncated: false };
      }
      const result = await db.query<Record<string, unknown>>(capped(request.statement, request.rowCap));
      const oids = [...new Set(result.fields.map((f) => f.dataTypeID))];
      const types = await db.query<{ oid: number; name: string }>(
        'SELECT oid::int AS oid, format_type(oid, NULL) AS name FROM pg_catalog.pg_type WHERE oid = ANY($1::oid[])',
        [oids],
      );
      const names = new Map(types.rows.map((r) => [r.oid, r.name]));
      const columns = result.fields.map((f) => ({ name: f.name, type: names.get(f.dataTypeID) ?? 'unknown' }));
      return {
        ok: true,
        columns,
        rows: toRows(result.rows.slice(0, request.rowCap), columns),
        truncated: result.rows.length > request.rowCap,
      };
    } finally {
      await db.exec('ROLLBACK').catch(() => {}); // a throwaway database, closed right after
    }
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err) };
  } finally {
    await db.close().catch(() => {}); // a throwaway in-memory database: nothing to lose
    // Warm the next database while idle, so the next caller doesn't wait for it.
    spare = fresh();
    spare.catch(() => {}); // a failed warm-up is seen (and thrown) by the next request that awaits it
  }
}

if (parentPort) {
  const port = parentPort;
  let chain = Promise.resolve();
  port.on('message', (message: { id: number; request: SandboxRequest }) => {
    chain = chain.then(async () => port.postMessage({ id: message.id, reply: await handle(message.request) }));
  });
}
