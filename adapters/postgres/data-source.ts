import 'reflect-metadata';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { ENTITIES, MIGRATIONS } from './schema.js';
import { STORE_TYPES } from './timestamp-parser.js';

/**
 * How long a pooled connection may sit idle before it is closed: ten minutes (PgBouncer's server_idle_timeout),
 * not pg-pool's ten seconds. A connection warms up as it is used: its backend loads the catalog, compiles
 * `dashpub_publish` and parses the named statements (named-statements.ts), and PostgreSQL plans each named
 * statement afresh for its first five runs, copying every value into the plan, a publish's whole blob
 * included. On a new connection a 10 KB publish cost its backend 4.7 ms of CPU, and each of the next five
 * 0.7–0.9 ms, against 0.4–0.5 ms on a warm one; a 5 MiB publish 30 ms, then 23–24 ms, against 17–18 ms
 * (`bench/connections.ts`, docs/benchmarks.md, the row of a publish on a new connection). With ten seconds, a
 * service whose publishes come a minute apart paid the first of those on every one.
 */
export const POOL_IDLE_MS = 10 * 60_000;

const pools = new WeakMap<DataSource, pg.Pool>();

/**
 * The `pg` pool a DataSource of `createDataSource` runs on, once it is initialised: the hot statements go
 * straight to it as named prepared statements (named-statements.ts).
 */
export function poolOf(dataSource: DataSource): pg.Pool | null {
  return pools.get(dataSource) ?? null;
}

/**
 * One PostgreSQL DataSource on the service's entities and migrations; never `synchronize`. Its pool is made
 * here: TypeORM's `driver` option takes the `pg` module it builds pools with, and this one's `Pool` records
 * the pool it makes for this DataSource (`poolOf`).
 */
export function createDataSource(url: string, options: { poolSize?: number } = {}): DataSource {
  const dataSource: DataSource = new DataSource({
    type: 'postgres',
    url,
    driver: {
      defaults: pg.defaults,
      Pool: class OwnedPool extends pg.Pool {
        constructor(config?: pg.PoolConfig) {
          super(config);
          pools.set(dataSource, this);
        }
      },
    },
    entities: ENTITIES,
    migrations: MIGRATIONS,
    synchronize: false,
    migrationsRun: false,
    logging: false,
    // allowExitOnIdle: idle connections do not keep a process alive that has nothing else to do. types:
    // timestamps parsed by position (timestamp-parser.ts).
    extra: { max: options.poolSize ?? 10, idleTimeoutMillis: POOL_IDLE_MS, allowExitOnIdle: true, types: STORE_TYPES },
  });
  return dataSource;
}

export async function openDataSource(url: string, options: { poolSize?: number; migrate?: boolean } = {}): Promise<DataSource> {
  const dataSource = createDataSource(url, options);
  await dataSource.initialize();
  if (options.migrate ?? true) await migrate(dataSource, { exclusive: false });
  return dataSource;
}

const MIGRATION_LOCK = `hashtextextended('dashpub:migrations', 0)`;

/**
 * Applies pending migrations and returns their names. Several instances starting together on one
 * database would otherwise all find the same migrations pending and collide; `exclusive` holds a
 * session advisory lock meanwhile (PostgreSQL; the embedded database has a single server process and
 * serves one session at a time, so it must not hold one session while migrating on another). The lock is
 * held on a connection of its own, outside the pool: the migrations take one from the pool, and with
 * DATABASE_POOL_SIZE=1 the lock holding the only one left them waiting for ever.
 */
export async function migrate(dataSource: DataSource, options: { exclusive: boolean }): Promise<string[]> {
  if (!options.exclusive) return (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
  const lock = new pg.Client({ connectionString: (dataSource.options as { url?: string }).url });
  // Losing this connection mid-migration surfaces as the unlock's error below (and the server does not start);
  // without a listener the same 'error' event would instead crash the process unreported.
  lock.on('error', () => {});
  await lock.connect();
  try {
    await lock.query(`SELECT pg_advisory_lock(${MIGRATION_LOCK})`);
    try {
      return (await dataSource.runMigrations({ transaction: 'each' })).map((m) => m.name);
    } finally {
      await lock.query(`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`);
    }
  } finally {
    await lock.end();
  }
}
