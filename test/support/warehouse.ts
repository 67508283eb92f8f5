import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { startThrowawayPostgres, type ThrowawayPostgres } from './throwaway-services.js';

export interface TestWarehouse {
  /** What a user adds as the connection: a read-only role on a server of its own. */
  url: string;
  /** The superuser on the same database, for seeding and changing the data. */
  adminUrl: string;
  name: string;
  /** The read-only role `url` logs in as. */
  role: string;
  drop(): Promise<void>;
}

let cluster: Promise<ThrowawayPostgres> | undefined;

/**
 * The tests' warehouse server: one throwaway cluster per test process, started on first use and stopped
 * after the last test. The service refuses any warehouse on its own database's server (by address and
 * port, and by the cluster's system identifier), so the warehouses cannot live on the test server.
 */
function warehouseServer(): Promise<ThrowawayPostgres> {
  cluster ??= startThrowawayPostgres();
  return cluster;
}

// A root hook, registered as the test files load: the cluster outlives every suite, and goes after the last.
if (typeof after === 'function') after(async () => (await cluster)?.destroy());

/**
 * A warehouse database `<prefix>_<random>` with a login role that may only read (pg_read_all_data, so
 * tables seeded later are readable too).
 */
export async function createTestWarehouse(prefix = 'dashpub_test_wh'): Promise<TestWarehouse> {
  const server = await warehouseServer();
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const role = `reader_${randomBytes(6).toString('hex')}`;
  await sql(server.url, `CREATE DATABASE "${name}"`);
  await sql(server.url, `CREATE ROLE "${role}" LOGIN IN ROLE pg_read_all_data`);
  const at = (user: string) => `postgres://${user}@127.0.0.1:${server.port}/${name}`;
  return {
    name,
    url: at(role),
    adminUrl: at('postgres'),
    role,
    async drop() {
      await sql(server.url, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await sql(server.url, `DROP ROLE IF EXISTS "${role}"`);
    },
  };
}

/** Runs one SQL text on `url` over a fresh connection (set-up and seeding in tests). */
export async function sql(url: string, text: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}
