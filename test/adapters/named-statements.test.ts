import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { poolOf } from '../../adapters/postgres/data-source.js';
import { NamedStatements, statementName } from '../../adapters/postgres/named-statements.js';
import { openTestDatabase, type OpenTestDatabase } from '../support/database.js';

/** The store's per-call statements, run as named prepared statements on the pool the adapter made for TypeORM. */
describe('NamedStatements on PostgreSQL', function () {
  this.timeout(60_000);
  let db: OpenTestDatabase;
  let statements: NamedStatements;

  before(async () => {
    // One connection: every statement below, failed ones included, shares it.
    db = await openTestDatabase({ poolSize: 1, migrate: false });
    statements = new NamedStatements(db.dataSource, true);
  });
  after(async () => db?.close());

  const digestOf = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');
  const statement = 'SELECT $1::text AS label, md5($2::bytea) AS digest, length($2::bytea) AS size';

  it('runs on the pool TypeORM runs on, which the adapter made', async () => {
    const pool = poolOf(db.dataSource)!;
    expect(pool).to.be.instanceOf(pg.Pool);
    expect(pool.options.max).to.equal(1);
    // TypeORM's own queries and the named statements share the one connection.
    const [{ pid }] = await db.dataSource.query<{ pid: number }[]>('SELECT pg_backend_pid() AS pid');
    expect(await statements.rows('SELECT pg_backend_pid() AS pid', [])).to.deep.equal([{ pid }]);
  });

  it('prepares each text once per connection, under the digest of its text', async () => {
    for (let i = 0; i < 3; i++) expect(await statements.rows('SELECT $1::int + 1 AS n', [i])).to.deep.equal([{ n: i + 1 }]);
    const prepared = await statements.rows('SELECT name FROM pg_prepared_statements WHERE statement = $1', ['SELECT $1::int + 1 AS n']);
    expect(prepared).to.deep.equal([{ name: statementName('SELECT $1::int + 1 AS n') }]);
  });

  it('stores a large value as sent, between other statements', async () => {
    for (let i = 0; i < 3; i++) {
      const large = randomBytes(2 * 1024 * 1024 + i);
      const [row] = await statements.rows(statement, [`call ${i}`, large]);
      expect(row).to.deep.equal({ label: `call ${i}`, digest: digestOf(large), size: large.length });
      expect(await statements.rows('SELECT $1::int + 1 AS n', [i])).to.deep.equal([{ n: i + 1 }]);
    }
  });

  it("answers PostgreSQL's refusal as pg does, and the connection goes on", async () => {
    const large = randomBytes(256 * 1024);
    let refusal: unknown;
    await statements.rows('SELECT $1::int AS n, length($2::bytea) AS size', ['not a number', large]).catch((err: unknown) => (refusal = err));
    expect(refusal).to.be.instanceOf(pg.DatabaseError);
    expect((refusal as pg.DatabaseError).code).to.equal('22P02');
    const [row] = await statements.rows(statement, ['after', large]);
    expect(row).to.deep.equal({ label: 'after', digest: digestOf(large), size: large.length });
  });
});
