import pg from 'pg';
import { createHash, randomBytes } from 'node:crypto';
import type { DataSource, MigrationInterface } from 'typeorm';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedPostgres } from '../../adapters/pglite/embedded-postgres.js';
import { openDataSource } from '../../adapters/postgres/data-source.js';
import { MIGRATIONS } from '../../adapters/postgres/schema.js';

/** The server tests may create databases on. Its own database name must contain "test". */
export const TEST_DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

function withDatabase(url: string, database: string): string {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/**
 * Creates a fresh, empty database `dashpub_test_<random>` next to TEST_DATABASE_URL's, so each suite
 * starts clean and never touches a database whose name lacks "test".
 */
export async function createTestDatabase(prefix = 'dashpub_test'): Promise<TestDatabase> {
  const adminDb = new URL(TEST_DATABASE_URL).pathname.slice(1);
  if (!adminDb.includes('test')) throw new Error(`refusing to use database "${adminDb}": its name lacks "test"`);
  const name = `${prefix}_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  return {
    name,
    url: withDatabase(TEST_DATABASE_URL, name),
    async drop() {
      const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

/** Runs `sql` on TEST_DATABASE_URL's database (the server's, not a test's). */
async function onServer<T>(sql: string, params: unknown[] = []): Promise<pg.QueryResult & { rows: T[] }> {
  const admin = new pg.Client({ connectionString: TEST_DATABASE_URL });
  await admin.connect();
  try {
    return await admin.query(sql, params);
  } finally {
    await admin.end();
  }
}

/** The migrated template's name: one per set of migrations (their names and code), so a changed one gets a new template. */
function templateName(): string {
  const hash = createHash('sha256');
  for (const migration of MIGRATIONS) hash.update(`${migration.name}\n${String(migration)}\n`);
  return `dashpub_test_template_${hash.digest('hex').slice(0, 16)}`;
}

/**
 * A database migrated once and kept as a template for later runs: built under another name and renamed
 * when complete, so a run (or a concurrent one) never copies a half-migrated template; no one connects to it.
 */
async function migratedTemplate(): Promise<string> {
  const name = templateName();
  if ((await onServer(`SELECT 1 FROM pg_database WHERE datname = $1`, [name])).rowCount) return name;
  const building = await createTestDatabase('dashpub_test_building');
  const dataSource = await openDataSource(building.url);
  await dataSource.destroy();
  try {
    await onServer(`ALTER DATABASE "${building.name}" RENAME TO "${name}"`);
    await onServer(`ALTER DATABASE "${name}" WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`);
    await dropStaleTemplates(name);
  } catch (err) {
    // Another run renamed its copy first: use that one.
    if ((err as { code?: string }).code !== '42P04') throw err;
    await building.drop();
  }
  return name;
}

/**
 * The templates of earlier migration sets, dropped when a new set gets its template, so the test server keeps
 * one; a template a concurrent run is copying refuses the drop and stays for a later run to drop.
 */
async function dropStaleTemplates(current: string): Promise<void> {
  const stale = await onServer(`SELECT datname FROM pg_database WHERE datname LIKE 'dashpub\\_test\\_template\\_%' AND datname <> $1`, [current]);
  for (const { datname } of stale.rows as { datname: string }[]) {
    try {
      await onServer(`ALTER DATABASE "${datname}" WITH IS_TEMPLATE false`);
      await onServer(`DROP DATABASE IF EXISTS "${datname}"`);
    } catch {
      // In use: the next new template's run drops it.
    }
  }
}

let template: Promise<string> | undefined;

/**
 * A fresh database already migrated to the newest schema, like createTestDatabase followed by the
 * migrations, but copied from a template migrated once: for suites whose subject is not the migrating.
 */
export async function createMigratedTestDatabase(): Promise<TestDatabase> {
  template ??= migratedTemplate().catch((err: unknown) => {
    template = undefined;
    throw err;
  });
  const source = await template;
  const name = `dashpub_test_${randomBytes(6).toString('hex')}`;
  await onServer(`CREATE DATABASE "${name}" TEMPLATE "${source}"`);
  return {
    name,
    url: withDatabase(TEST_DATABASE_URL, name),
    drop: async () => void (await onServer(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)),
  };
}

export interface OpenTestDatabase {
  url: string;
  /** Open on the database, migrated to the newest schema unless `migrate: false` was asked for. */
  dataSource: DataSource;
  /** Closes the DataSource and drops the database. */
  close(): Promise<void>;
}

/** A fresh test database with a DataSource open on it (openDataSource's options): migrated by default (createMigratedTestDatabase), else empty. */
export async function openTestDatabase(options: Parameters<typeof openDataSource>[1] = {}): Promise<OpenTestDatabase> {
  const database = (options.migrate ?? true) ? await createMigratedTestDatabase() : await createTestDatabase();
  const dataSource = await openDataSource(database.url, options);
  return {
    url: database.url,
    dataSource,
    async close() {
      await dataSource.destroy();
      await database.drop();
    },
  };
}

/** A migrated database with a DataSource on it, and what closes both (`openTestDatabase`, `openEmbeddedDatabase`). */
export type OpenDatabase = () => Promise<{ dataSource: DataSource; close(): Promise<void> }>;

/**
 * A suite's database: opened by `open` before the suite's tests and closed after them. Call it inside
 * `describe`; `dataSource` is there once the suite's `before` hooks have run.
 */
export function suiteDatabase(open: OpenDatabase): { readonly dataSource: DataSource } {
  let opened: Awaited<ReturnType<OpenDatabase>> | undefined;
  before(async () => {
    opened = await open();
  });
  after(async () => {
    await opened?.close();
  });
  return {
    get dataSource() {
      if (!opened) throw new Error('the suite database is not open: use it in a test or a hook');
      return opened.dataSource;
    },
  };
}

/**
 * The embedded PGlite server in a temporary data directory, migrated, with a DataSource on it; `close` stops it
 * and removes the directory. For suites that run once on PostgreSQL (`openTestDatabase`) and once on PGlite.
 */
export async function openEmbeddedDatabase(prefix: string): Promise<Awaited<ReturnType<OpenDatabase>>> {
  const dataDir = mkdtempSync(join(tmpdir(), `${prefix}-`));
  const embedded = await startEmbeddedPostgres(dataDir);
  const dataSource = await openDataSource(embedded.url);
  return {
    dataSource,
    async close() {
      await dataSource.destroy().catch(() => undefined);
      await embedded.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * Runs `check` with `migrations` taken down on `dataSource` in the order given (newest first), and puts them
 * up again in the reverse order whatever `check` does, so the schema is the newest again after.
 */
export async function whileMigratedDown(dataSource: DataSource, migrations: MigrationInterface | MigrationInterface[], check: () => Promise<void>): Promise<void> {
  const newestFirst = Array.isArray(migrations) ? migrations : [migrations];
  const runner = dataSource.createQueryRunner();
  const down: MigrationInterface[] = [];
  try {
    for (const migration of newestFirst) {
      await migration.down(runner);
      down.unshift(migration);
    }
    await check();
  } finally {
    try {
      for (const migration of down) await migration.up(runner);
    } finally {
      await runner.release();
    }
  }
}
