import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { AccountStore } from '../../application/ports/account-store.js';
import { DashboardStore } from '../../application/ports/dashboard-store.js';
import { FILE_SWEEP_GRACE_SECONDS, FILE_TOUCH_AGE_SECONDS, FileSweeper } from '../../application/ports/file-sweeper.js';
import { buildContainer } from '../../shells/container.js';
import { createMigratedTestDatabase, whileMigratedDown, type TestDatabase } from '../support/database.js';
import { aUser } from '../support/mothers.js';
import { PublishWrites1700000015200 } from '../../adapters/postgres/migrations/1700000015200-publish-writes.js';
import { FilesSortedBeforeBytes1700000015300 } from '../../adapters/postgres/migrations/1700000015300-files-sorted-before-bytes.js';
import { PublishGenericPlans1700000015500 } from '../../adapters/postgres/migrations/1700000015500-publish-generic-plans.js';
import { PublishAnswersItsMiss1700000015600 } from '../../adapters/postgres/migrations/1700000015600-publish-answers-its-miss.js';
import { DataSource } from 'typeorm';
import { testSettings } from '../support/settings.js';

/** The migrations after 1700000015300 that change `dashpub_publish`, newest first: down before it, up after it. */
const LATER_FUNCTIONS = [new PublishAnswersItsMiss1700000015600(), new PublishGenericPlans1700000015500()];

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Files are shared by hash, so writers of the same bytes meet on one `files` row. Storing bytes already
 * stored must not make them queue on that row (migration 1700000015200), and must still keep the file
 * sweep off bytes whose mark is old. Each case holds one writer's transaction open and watches the other.
 */
describe('writers of the same bytes on PostgreSQL', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let app: Awaited<ReturnType<typeof buildContainer>>;
  let held: pg.Client;
  let other: pg.Client;
  const owners: string[] = [];

  before(async () => {
    database = await createMigratedTestDatabase();
    app = await buildContainer(testSettings({ databaseUrl: database.url }), { refreshWorkers: false });
    const accounts = app.container.get<AccountStore>(AccountStore);
    for (let i = 0; i < 3; i++) owners.push((await aUser(accounts)).id);
    held = new pg.Client({ connectionString: database.url });
    other = new pg.Client({ connectionString: database.url });
    await held.connect();
    await other.connect();
    // A writer that queues behind the held transaction fails instead of hanging the test.
    await other.query(`SET statement_timeout = '3s'`);
  });

  after(async () => {
    await held?.end();
    await other?.end();
    await app?.close();
    await database?.drop();
  });

  /**
   * dashpub_publish of `files` for `owner`, in the order given, as the store calls it (a new dashboard at
   * `slug`; the first file is its index.html, the files' bytes one blob).
   */
  const publish = (client: pg.Client, owner: string, slug: string, ...files: Buffer[]) => {
    const hashes = files.map(sha256);
    const manifest = Object.fromEntries(
      files.map((f, i) => [i === 0 ? 'index.html' : `f${i}.bin`, { sha256: hashes[i], size: f.byteLength, contentType: i === 0 ? 'text/html; charset=utf-8' : 'application/octet-stream' }]),
    );
    return client.query(
      `SELECT new_seq AS seq FROM dashpub_publish('user', $1::text, $2, NULL, gen_random_uuid(), $2, '{}', NULL, 'public', 'self', $1::uuid, now(), now(),
         gen_random_uuid(), $1::uuid, now(), $3::jsonb, NULL, 20, $4::text[], $5::integer[], $6::bytea)`,
      [owner, slug, JSON.stringify(manifest), hashes, files.map((f) => f.byteLength), Buffer.concat(files)],
    );
  };
  const storedAt = async (bytes: Buffer) =>
    ((await other.query(`SELECT stored_at FROM files WHERE sha256 = $1`, [sha256(bytes)])).rows[0] as { stored_at: Date } | undefined)?.stored_at;

  it('publishes bytes another open transaction has just published again without waiting for it', async () => {
    const bytes = Buffer.from(`<p>shared ${Date.now()}</p>`);
    await publish(other, owners[0]!, 'first', bytes);
    const mark = await storedAt(bytes);

    await held.query('BEGIN');
    try {
      await publish(held, owners[1]!, 'second', bytes);
      // Before migration 1700000015200 this waited for the held transaction's row lock and timed out.
      const third = await publish(other, owners[2]!, 'third', bytes);
      expect(third.rows[0].seq).to.equal(1);
    } finally {
      await held.query('COMMIT');
    }
    expect(await storedAt(bytes)).to.deep.equal(mark);
  });

  it('stores bytes through the store while another transaction holds the same bytes, without waiting', async () => {
    const store = app.container.get<DashboardStore>(DashboardStore);
    const bytes = Buffer.from(`<p>stored twice ${Date.now()}</p>`);
    await store.transaction({ kind: 'user', id: owners[0]! }, (tx) => tx.putFile(sha256(bytes), bytes));

    let release!: () => void;
    let stored!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const storedInFirst = new Promise<void>((resolve) => (stored = resolve));
    const first = store.transaction({ kind: 'user', id: owners[1]! }, async (tx) => {
      await tx.putFile(sha256(bytes), bytes);
      stored();
      await released;
    });
    await storedInFirst;
    const second = store.transaction({ kind: 'user', id: owners[2]! }, (tx) => tx.putFile(sha256(bytes), bytes)).then(() => 'done');
    const outcome = await Promise.race([second, sleep(3000).then(() => 'waited')]);
    release();
    await first;
    await second;
    expect(outcome).to.equal('done');
  });

  it('marks anew at the same age as putFile: the one the migration wrote into dashpub_publish', async () => {
    const source = (await other.query(`SELECT prosrc FROM pg_proc WHERE proname = 'dashpub_publish'`)).rows[0].prosrc as string;
    expect(source).to.contain(`stored_at < now() - interval '${FILE_TOUCH_AGE_SECONDS} seconds'`);
  });

  it('goes down to the function before it (answering the number alone) and up again', async () => {
    await whileMigratedDown(app.container.get<DataSource>(DataSource), [...LATER_FUNCTIONS, new FilesSortedBeforeBytes1700000015300(), new PublishWrites1700000015200()], async () => {
      const before = await other.query(
        `SELECT dashpub_publish('user', $1::text, 'downgraded', NULL, gen_random_uuid(), 'd', '{}', NULL, 'public', 'self', $1::uuid, now(), now(),
           gen_random_uuid(), $1::uuid, now(), '{}'::jsonb, NULL, 20, ARRAY[]::text[], ARRAY[]::integer[], ''::bytea) AS seq`,
        [owners[0]],
      );
      expect(before.rows[0].seq).to.equal(1);
    });
    const after = await publish(other, owners[0]!, 'upgraded', Buffer.from('<p>up</p>'));
    expect(after.rows[0].seq).to.equal(1);
    // Up again to the newest function: it answers a miss's state and plans generically.
    const [newest] = (await other.query(`SELECT proargnames, proconfig FROM pg_proc WHERE proname = 'dashpub_publish'`)).rows;
    expect(newest.proargnames).to.include('state');
    expect(newest.proconfig).to.deep.equal(['plan_cache_mode=force_generic_plan']);
  });

  it('stores a page bigger than work_mem without sorting its bytes through a temporary file (migration 1700000015300)', async () => {
    // The database's count of temporary files, with this backend's own counts flushed first.
    const tempFiles = async () => {
      await other.query('SELECT pg_stat_force_next_flush()');
      await other.query('SELECT pg_stat_clear_snapshot()');
      return Number((await other.query('SELECT temp_files FROM pg_stat_database WHERE datname = current_database()')).rows[0].temp_files);
    };
    const page = (seed: string) => Buffer.concat([Buffer.from(seed), randomBytes(1024 * 1024)]);
    await other.query(`SET work_mem = '64kB'`);
    try {
      const before = await tempFiles();
      expect((await publish(other, owners[2]!, 'big-page', page('now'))).rows[0].seq).to.equal(1);
      expect(await tempFiles()).to.equal(before);

      // The function as migration 1700000015200 wrote it sorted the bytes too, and spilled them.
      await whileMigratedDown(app.container.get<DataSource>(DataSource), [...LATER_FUNCTIONS, new FilesSortedBeforeBytes1700000015300()], async () => {
        await publish(other, owners[2]!, 'big-page-before', page('before'));
        expect(await tempFiles()).to.be.greaterThan(before);
      });
    } finally {
      await other.query('RESET work_mem');
    }
  });

  it('stores each of several files of one publish with its own bytes, given in any order', async () => {
    // Given against hash order, in sizes that put each file's bytes at a different offset of the blob.
    const files = [randomBytes(3000), randomBytes(10), randomBytes(70_000), Buffer.alloc(0)].sort((a, b) => sha256(b).localeCompare(sha256(a)));
    expect((await publish(other, owners[2]!, 'several', ...files)).rows[0].seq).to.equal(1);
    const stored = await other.query(`SELECT sha256, bytes FROM files WHERE sha256 = ANY ($1)`, [files.map(sha256)]);
    expect(stored.rows).to.have.length(files.length);
    for (const row of stored.rows as Array<{ sha256: string; bytes: Buffer }>) expect(sha256(row.bytes)).to.equal(row.sha256);
  });

  it('marks bytes with an old mark stored anew, so a sweep in flight waits for the publish and keeps them', async () => {
    const bytes = Buffer.from(`<p>old ${Date.now()}</p>`);
    await publish(other, owners[0]!, 'old-one', bytes);
    await other.query(`DELETE FROM dashboards WHERE owner_id = $1 AND slug = 'old-one'`, [owners[0]]);
    await other.query(`UPDATE files SET stored_at = now() - make_interval(secs => $1) WHERE sha256 = $2`, [FILE_SWEEP_GRACE_SECONDS * 2, sha256(bytes)]);

    let sweeping: Promise<number> | undefined;
    await held.query('BEGIN');
    try {
      await publish(held, owners[1]!, 'old-again', bytes);
      sweeping = app.container.get<FileSweeper>(FileSweeper).sweep(FILE_SWEEP_GRACE_SECONDS);
      await sleep(500); // the sweep reaches the row the publish holds, and waits
    } finally {
      await held.query('COMMIT');
    }
    await sweeping;
    expect(await storedAt(bytes)).to.be.instanceOf(Date);
    expect(Date.now() - (await storedAt(bytes))!.getTime()).to.be.below(60_000);
  });
});
