import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { TagsInsertedPerRow1700000015400 } from '../../adapters/postgres/migrations/1700000015400-tags-inserted-per-row.js';
import { openTestDatabase, whileMigratedDown, type OpenTestDatabase } from '../support/database.js';

/**
 * `dashboard_tags` follows new dashboards however they are written: the publish function, the stores, SQL
 * by hand, several rows in one statement. Migration 1700000015400 fills it from a row trigger that fires
 * only for a row with tags; its `down` goes back to the statement trigger, which must fill it the same way.
 */
describe('dashboard_tags for new dashboards (migration 1700000015400)', function () {
  this.timeout(60_000);
  let db: OpenTestDatabase;
  let dataSource: DataSource;

  before(async () => {
    db = await openTestDatabase();
    dataSource = db.dataSource;
  });
  after(async () => db?.close());

  /** Inserts, in one statement, one dashboard per entry of `tagLists` for a new owner; answers the owner. */
  async function insertDashboards(tagLists: string[][]): Promise<string> {
    const owner = randomUUID();
    const rows = tagLists.map((_, i) => `($${i * 3 + 1}::uuid, 'user', $${tagLists.length * 3 + 1}::uuid, $${i * 3 + 2}, 'n', $${i * 3 + 3}::text[], 'public', 'self', gen_random_uuid(), gen_random_uuid(), now(), now())`);
    const params = tagLists.flatMap((tags, i) => [randomUUID(), `d-${i}`, tags]);
    await dataSource.query(
      `INSERT INTO dashboards (id, owner_kind, owner_id, slug, name, tags, visibility, connection, current_version_id, created_by, created_at, updated_at)
       VALUES ${rows.join(', ')}`,
      [...params, owner],
    );
    return owner;
  }

  const tagRows = async (owner: string) =>
    (await dataSource.query(`SELECT tag, slug FROM dashboard_tags WHERE owner_id = $1 ORDER BY tag, slug`, [owner])) as Array<{ tag: string; slug: string }>;

  const expected = [
    { tag: 'a', slug: 'd-0' },
    { tag: 'a', slug: 'd-2' },
    { tag: 'b', slug: 'd-2' },
    { tag: 'c', slug: 'd-3' },
  ];
  const tagLists = [['a'], [], ['b', 'a', 'b'], ['c']];

  it('fills the tag rows of each new dashboard with tags, once per tag, from one statement of several rows', async () => {
    expect(await tagRows(await insertDashboards(tagLists))).to.deep.equal(expected);
  });

  it('fires for a row with tags only', async () => {
    const [trigger] = await dataSource.query(
      `SELECT pg_get_triggerdef(oid) AS definition FROM pg_trigger WHERE tgrelid = 'dashboards'::regclass AND tgname = 'dashboards_tags_inserted'`,
    );
    expect(trigger.definition).to.match(/AFTER INSERT ON public\.dashboards FOR EACH ROW WHEN \(\(cardinality\(new\.tags\) > 0\)\)/);
  });

  it('goes down to the statement trigger, which fills them the same, and up again', async () => {
    await whileMigratedDown(dataSource, new TagsInsertedPerRow1700000015400(), async () => {
      expect(await tagRows(await insertDashboards(tagLists))).to.deep.equal(expected);
    });
    expect(await tagRows(await insertDashboards(tagLists))).to.deep.equal(expected);
  });
});
