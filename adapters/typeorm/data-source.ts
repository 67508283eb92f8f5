import 'reflect-metadata';
import pg from 'pg';
import { DataSource } from 'typeorm';
import { ENTITIES, MIGRATIONS } from './schema.js';

/** One PostgreSQL DataSource on the service's entities and migrations; never `synchronize`. */
export function createDataSource(url: string, options: { poolSize?: number } = {}): DataSource {
  return new DataSource({
    type: 'postgres',
    url,
    entities: ENTITIES,
    migrations: MIGRATIONS,
    synchronize: false,
    migrationsRun: false,
    logging: false,
    extra: { max: options.poolSize ?? 10 },
  });
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
