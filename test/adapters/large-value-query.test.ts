import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { serialize } from 'pg-protocol';
import { BY_REFERENCE_FROM, endsInLargeBuffer, LargeValueQuery } from '../../adapters/typeorm/large-value-query.js';
import { NamedStatements } from '../../adapters/typeorm/named-statements.js';
import { openTestDatabase, type OpenTestDatabase } from '../support/database.js';

/** What a query sends through its connection, as pg's Connection would write it, and each write's Buffer. */
function recordingConnection() {
  const writes: Buffer[] = [];
  const stream = { writable: true, write: (chunk: Buffer) => writes.push(chunk) > 0 };
  // As pg's Connection._send: nothing once the socket can no longer be written to.
  const send = (buffer: Buffer) => void (stream.writable && stream.write(buffer));
  return {
    writes,
    connection: {
      stream,
      parsedStatements: {} as Record<string, string>,
      submittedNamedStatements: {} as Record<string, string>,
      parse: (config: Parameters<typeof serialize.parse>[0]) => send(serialize.parse(config)),
      bind: (config: Parameters<typeof serialize.bind>[0]) => send(serialize.bind(config)),
      describe: (config: Parameters<typeof serialize.describe>[0]) => send(serialize.describe(config)),
      execute: (config: Parameters<typeof serialize.execute>[0]) => send(serialize.execute(config)),
      close: (config: Parameters<typeof serialize.close>[0]) => send(serialize.close(config)),
      sync: () => send(serialize.sync()),
      flush: () => send(serialize.flush()),
    },
  };
}

const sent = (query: pg.Query) => {
  const { writes, connection } = recordingConnection();
  (query as unknown as { prepare(c: unknown): void }).prepare(connection);
  return writes;
};

describe('LargeValueQuery: a statement whose last value goes out by reference', () => {
  const config = () => {
    const large = randomBytes(BY_REFERENCE_FROM + 3);
    return { large, config: { name: 'dashpub_test_large', text: 'SELECT $1::text, $2::text[], $3::jsonb, $4::bytea', values: ['a', ['x', 'y z'], '{"k":1}', large] } };
  };

  it('sends byte for byte what pg sends, with the Buffer itself as one of the writes', () => {
    const { large, config: c } = config();
    const ours = sent(new LargeValueQuery(c));
    const pgs = sent(new pg.Query({ ...c, values: [...c.values] }));
    expect(Buffer.concat(ours).equals(Buffer.concat(pgs))).to.equal(true);
    expect(ours.some((chunk) => chunk === large), 'the Buffer is written, not a copy').to.equal(true);
    // pg copies it into its Bind: none of its writes is the Buffer.
    expect(pgs.some((chunk) => chunk === large)).to.equal(false);
  });

  it('writes nothing when the connection can no longer be written to, as pg does', () => {
    const { config: c } = config();
    const { writes, connection } = recordingConnection();
    connection.stream.writable = false;
    (new LargeValueQuery(c) as unknown as { prepare(c: unknown): void }).prepare(connection);
    expect(writes).to.deep.equal([]);
  });

  it('is only for a statement that ends in a large Buffer', () => {
    expect(endsInLargeBuffer(['a', Buffer.alloc(BY_REFERENCE_FROM)])).to.equal(true);
    expect(endsInLargeBuffer(['a', Buffer.alloc(BY_REFERENCE_FROM - 1)])).to.equal(false);
    expect(endsInLargeBuffer([Buffer.alloc(BY_REFERENCE_FROM), 'a'])).to.equal(false);
    expect(endsInLargeBuffer(['x'.repeat(BY_REFERENCE_FROM)])).to.equal(false);
    expect(endsInLargeBuffer([])).to.equal(false);
  });

  describe('through NamedStatements on PostgreSQL', function () {
    this.timeout(60_000);
    let db: OpenTestDatabase;
    let reads: NamedStatements;

    before(async () => {
      // One connection: every statement below, failed ones included, shares it.
      db = await openTestDatabase({ poolSize: 1, migrate: false });
      reads = new NamedStatements(db.dataSource, true);
    });
    after(async () => db?.close());

    const digestOf = (bytes: Buffer) => createHash('md5').update(bytes).digest('hex');
    const statement = 'SELECT $1::text AS label, md5($2::bytea) AS digest, length($2::bytea) AS size';

    it('stores what was sent, parsed once and bound again, between other statements', async () => {
      const prepare = LargeValueQuery.prototype.prepare;
      let byReference = 0;
      LargeValueQuery.prototype.prepare = function (this: LargeValueQuery, connection) {
        byReference++;
        prepare.call(this, connection);
      };
      try {
        for (let i = 0; i < 3; i++) {
          const large = randomBytes(2 * 1024 * 1024 + i);
          const [row] = await reads.rows(statement, [`call ${i}`, large]);
          expect(row).to.deep.equal({ label: `call ${i}`, digest: digestOf(large), size: large.length });
          expect(await reads.rows('SELECT $1::int + 1 AS n', [i])).to.deep.equal([{ n: i + 1 }]);
        }
      } finally {
        LargeValueQuery.prototype.prepare = prepare;
      }
      expect(byReference, 'the large statements went by reference, the small ones not').to.equal(3);
    });

    it("answers PostgreSQL's refusal as pg does, and the connection goes on", async () => {
      const large = randomBytes(BY_REFERENCE_FROM * 4);
      let refusal: unknown;
      await reads.rows('SELECT $1::int AS n, length($2::bytea) AS size', ['not a number', large]).catch((err: unknown) => (refusal = err));
      expect(refusal).to.be.instanceOf(pg.DatabaseError);
      expect((refusal as pg.DatabaseError).code).to.equal('22P02');
      const [row] = await reads.rows(statement, ['after', large]);
      expect(row).to.deep.equal({ label: 'after', digest: digestOf(large), size: large.length });
    });
  });
});
