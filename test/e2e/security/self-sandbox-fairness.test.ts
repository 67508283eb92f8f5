import { expect } from 'chai';
import { AccountStore } from '../../../application/ports/account-store.js';
import { buildContainer, type AppContainer } from '../../../shells/container.js';
import { createMigratedTestDatabase, type TestDatabase } from '../../support/database.js';
import { callToolOverHttp as callTool, spawnServer, type SpawnedServer } from '../../support/server.js';
import { TEST_SECRET_KEY, testSettings } from '../../support/settings.js';
import { mintAccessToken } from '../../support/tokens.js';
import { aUser } from '../../support/mothers.js';

/**
 * Attack: one owner keeps the `self` sandbox busy with slow queries; another owner's `select 1` must
 * not wait behind them (issue 30, item 3). Asserts the order answers arrive in, never a duration.
 */
describe('security: one owner cannot stall everyone else\'s self queries', function () {
  this.timeout(180_000);
  let database: TestDatabase;
  let server: SpawnedServer;
  let admin: AppContainer;

  before(async () => {
    database = await createMigratedTestDatabase();
    server = await spawnServer({ DATABASE_URL: database.url, REDIS_URL: '' }, 60_000);
    admin = await buildContainer(testSettings({ databaseUrl: database.url, secretKey: TEST_SECRET_KEY }), { role: 'cli', refreshWorkers: false });
  });

  after(async () => {
    await server?.close();
    await admin?.close();
    await database?.drop();
  });

  async function token(handle: string) {
    const user = await aUser(admin.container.get<AccountStore>(AccountStore), { handle });
    return (await mintAccessToken(admin.container, { userId: user.id, lock: { kind: 'personal' } })).access_token;
  }

  const validate = (bearer: string, sql: string) => callTool(server, bearer, 'validate_cube_sql', { connection: 'self', sql });

  it('answers another owner\'s select 1 while the first owner\'s slow queries run, and cancels those at the self time budget', async () => {
    const mallory = await token('slowpoke');
    const alice = await token('bystander');
    // Both owners have used `self` before (their sandboxes exist), as on a running server.
    for (const bearer of [mallory, alice]) expect((await validate(bearer, 'select 1 as one')).isError).to.equal(false);

    const finished: string[] = [];
    const slow = 'select count(*) from generate_series(1, 2000000000) as g';
    const slowCalls = [1, 2].map((n) => validate(mallory, slow).then((r) => (finished.push(`mallory-${n}`), r)));
    await new Promise((resolve) => setTimeout(resolve, 1_000)); // mallory's queries are in before alice's
    const quick = validate(alice, 'select 1 as one').then((r) => (finished.push('alice'), r));

    const [first, second, answer] = await Promise.all([...slowCalls, quick]);
    expect(answer.isError, answer.text).to.equal(false);
    expect(answer.text).to.contain('The SQL is valid on connection "self": 1 column(s) (one integer), 1 sample row(s).');
    expect(finished[0]).to.equal('alice');
    // The default budget of `self` is 5 s: the slow statements are cancelled, one after the other.
    for (const r of [first!, second!]) {
      expect(r.isError).to.equal(true);
      expect(r.text).to.contain('query cancelled: it ran longer than 5 s');
    }
  });
});
