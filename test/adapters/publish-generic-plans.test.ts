import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { PublishGenericPlans1700000015500 } from '../../adapters/postgres/migrations/1700000015500-publish-generic-plans.js';
import { openTestDatabase, whileMigratedDown, type OpenTestDatabase } from '../support/database.js';

/**
 * Migration 1700000015500: `dashpub_publish` plans its statements once per connection. Seen through
 * auto_explain's nested plans: with a custom plan the touch of stored files shows the hashes it was planned
 * for as a literal array, with the generic plan the parameter.
 */
describe('dashpub_publish with generic plans (migration 1700000015500)', function () {
  this.timeout(60_000);
  let db: OpenTestDatabase;

  before(async () => {
    db = await openTestDatabase();
  });
  after(async () => db?.close());

  /** The plan of the `UPDATE files` statement in the tenth publish of one session. */
  async function touchPlanOfTenthPublish(): Promise<string> {
    const client = new pg.Client({ connectionString: db.url });
    await client.connect();
    try {
      const notices: string[] = [];
      client.on('notice', (notice) => notices.push(notice.message ?? ''));
      await client.query(`LOAD 'auto_explain'`);
      for (const setting of ['auto_explain.log_min_duration = 0', 'auto_explain.log_nested_statements = on', 'auto_explain.log_level = notice', 'client_min_messages = notice']) {
        await client.query(`SET ${setting}`);
      }
      const owner = randomUUID();
      for (let i = 0; i < 10; i++) {
        notices.length = 0;
        await client.query(
          `SELECT dashpub_publish('user', $1::text, $2, NULL, gen_random_uuid(), 'p', '{}', NULL, 'public', 'self', gen_random_uuid(), now(), now(),
             gen_random_uuid(), gen_random_uuid(), now(), '{}'::jsonb, NULL, 20, ARRAY[md5($2)], ARRAY[3], 'abc'::bytea)`,
          [owner, `p-${i}`],
        );
      }
      const plan = notices.find((notice) => notice.includes('Update on files'));
      expect(plan, 'auto_explain reported the nested UPDATE').to.be.a('string');
      return plan!;
    } finally {
      await client.end();
    }
  }

  it('runs the touch of stored files with its generic plan, not one planned for the hashes at hand', async () => {
    const plan = await touchPlanOfTenthPublish();
    expect(plan).to.match(/sha256 = ANY \(\$\d+\)/);
    expect(plan).not.to.match(/ANY \('\{/);
  });

  it('goes down to custom plans for it, and up again', async () => {
    await whileMigratedDown(db.dataSource, new PublishGenericPlans1700000015500(), async () => {
      expect(await touchPlanOfTenthPublish()).to.match(/ANY \('\{[0-9a-f]{32}\}'::text\[\]\)/);
    });
    const [{ proconfig }] = await db.dataSource.query(`SELECT proconfig FROM pg_proc WHERE proname = 'dashpub_publish'`);
    expect(proconfig).to.deep.equal(['plan_cache_mode=force_generic_plan']);
  });
});
