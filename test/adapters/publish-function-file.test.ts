import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'chai';
import pg from 'pg';
import { openTestDatabase, type OpenTestDatabase } from '../support/database.js';

/** The readable text of the current function, read from the source tree (dist/test/adapters → the package root). */
const FUNCTION_FILE = fileURLToPath(new URL('../../../adapters/postgres/sql/dashpub-publish.sql', import.meta.url));

/**
 * adapters/postgres/sql/dashpub-publish.sql is the function the migrations leave behind: its arguments, its
 * results, its settings and its body (compared with runs of white space as one space, as the file is indented
 * for reading and the migrations' frozen copies for their template strings).
 */
describe('dashpub_publish: the .sql file is the function the migrations install', function () {
  this.timeout(60_000);
  let db: OpenTestDatabase;
  let client: pg.Client;

  before(async () => {
    db = await openTestDatabase();
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  after(async () => {
    await client?.end();
    await db?.close();
  });

  const describeFunction = async () =>
    (
      await client.query(
        `SELECT pg_get_function_arguments(p.oid) AS arguments, pg_get_function_result(p.oid) AS result, p.proconfig AS config,
           l.lanname AS language, p.provolatile AS volatility, regexp_replace(btrim(p.prosrc, E' \\n'), '\\s+', ' ', 'g') AS body
         FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang WHERE p.proname = 'dashpub_publish'`,
      )
    ).rows;

  it('installs, from the file alone, the same function as the migrations', async () => {
    const migrated = await describeFunction();
    expect(migrated).to.have.length(1);
    expect(migrated[0].config).to.deep.equal(['plan_cache_mode=force_generic_plan']);
    expect(migrated[0].body).to.include('ORDER BY seq DESC OFFSET p_snapshots_kept');
    await client.query('BEGIN');
    try {
      await client.query('DROP FUNCTION dashpub_publish');
      await client.query(readFileSync(FUNCTION_FILE, 'utf8'));
      expect(await describeFunction()).to.deep.equal(migrated);
    } finally {
      await client.query('ROLLBACK');
    }
  });
});
