import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { publishReadSql } from '../../adapters/postgres/dashboard-sql.js';
import { PublishAnswersItsMiss1700000015600 } from '../../adapters/postgres/migrations/1700000015600-publish-answers-its-miss.js';
import { openTestDatabase, whileMigratedDown, type OpenTestDatabase } from '../support/database.js';

/**
 * Migration 1700000015600: a `dashpub_publish` that writes nothing answers the slug's state itself, and it
 * must be what a publish's read of the slug answers (`publishReadSql`), which the store decides on again.
 */
describe('dashpub_publish answering a miss with the slug as the read gives it (migration 1700000015600)', function () {
  this.timeout(60_000);
  let db: OpenTestDatabase;
  let client: pg.Client;
  const owner = randomUUID();

  before(async () => {
    db = await openTestDatabase();
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
  });
  after(async () => {
    await client?.end();
    await db?.close();
  });

  /** One call of the function for `slug`, as `dashboard` (a new id when omitted), expecting `expected`. */
  async function publish(slug: string, expected: string | null, dashboard: string = randomUUID()) {
    const { rows } = await client.query(
      `SELECT new_seq, new_row_version, state FROM dashpub_publish('user', $1::text, $2, $3::xid, $4, 'n', '{t}', NULL, 'public', 'self',
         gen_random_uuid(), now(), now(), gen_random_uuid(), gen_random_uuid(), now(),
         '{"index.html": {"sha256": "h", "size": 1, "contentType": "text/html"}}'::jsonb, NULL, 20, ARRAY[md5($2)], ARRAY[1], 'a'::bytea)`,
      [owner, slug, expected, dashboard],
    );
    return rows[0] as { new_seq: number | null; new_row_version: string | null; state: Record<string, unknown> | null };
  }

  async function read(slug: string): Promise<Record<string, unknown>> {
    const [sql, params] = publishReadSql({ kind: 'user', id: owner }, slug);
    return (await client.query(sql, params)).rows[0].state;
  }

  it('answers no state when it wrote', async () => {
    const written = await publish('fresh', null);
    expect(written.new_seq).to.equal(1);
    expect(written.state).to.equal(null);
  });

  it('answers what the read answers when the slug is taken, its row moved on, or an alias', async () => {
    const first = await publish('taken', null);
    const dashboard = (await read('taken')).id as string;
    const taken = await publish('taken', null);
    expect(taken.new_seq).to.equal(null);
    expect(taken.state).to.deep.equal(await read('taken'));
    expect(taken.state?.row_version).to.equal(first.new_row_version);

    const stale = await publish('taken', '1', dashboard);
    expect(stale.new_seq).to.equal(null);
    expect(stale.state).to.deep.equal(await read('taken'));

    await client.query(`INSERT INTO dashboard_aliases (owner_kind, owner_id, slug, dashboard_id) VALUES ('user', $1, 'old-name', $2)`, [owner, dashboard]);
    const alias = await publish('old-name', null);
    expect(alias.new_seq).to.equal(null);
    expect(alias.state).to.deep.equal(await read('old-name'));
    expect(alias.state).to.include({ is_alias: true, alias_of: 'taken' });
  });

  it('goes down to the function without the answer, and up again', async () => {
    await whileMigratedDown(db.dataSource, new PublishAnswersItsMiss1700000015600(), async () => {
      const { rows } = await client.query(`SELECT proargnames FROM pg_proc WHERE proname = 'dashpub_publish'`);
      expect(rows[0].proargnames).not.to.include('state');
    });
    expect((await publish('taken', null)).state).to.deep.equal(await read('taken'));
  });
});
