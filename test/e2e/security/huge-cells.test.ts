import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import { AccountStore } from '../../../application/ports/account-store.js';
import { buildContainer, type AppContainer } from '../../../shells/container.js';
import { createMigratedTestDatabase, type TestDatabase } from '../../support/database.js';
import { callToolOverHttp as callTool, spawnServer, type SpawnedServer } from '../../support/server.js';
import { TEST_SECRET_KEY, testSettings } from '../../support/settings.js';
import { mintAccessToken } from '../../support/tokens.js';
import { aUser } from '../../support/mothers.js';

const residentMiB = (pid: number) => Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024;

/**
 * Attack: a `self` query whose cells are tens of megabytes (issue 30, item 4). It took the server from
 * 358 MiB to 2.1 GiB resident and answered HTTP 500; now it is refused as a tool result naming the cap,
 * and the `dashpub serve` process grows by less than 100 MiB.
 */
describe('security: huge cells from a self query', function () {
  this.timeout(180_000);
  let database: TestDatabase;
  let server: SpawnedServer;
  let admin: AppContainer;
  let bearer: string;

  before(async () => {
    database = await createMigratedTestDatabase();
    // A longer `self` budget than the default, so what stops the query here is the cell cap, not the clock.
    server = await spawnServer({ DATABASE_URL: database.url, REDIS_URL: '', SELF_QUERY_TIMEOUT_SECONDS: '60' }, 60_000);
    admin = await buildContainer(testSettings({ databaseUrl: database.url, secretKey: TEST_SECRET_KEY }), { role: 'cli', refreshWorkers: false });
    const user = await aUser(admin.container.get<AccountStore>(AccountStore), { handle: 'bigcells' });
    bearer = (await mintAccessToken(admin.container, { userId: user.id, lock: { kind: 'personal' } })).access_token;
  });

  after(async () => {
    await server?.close();
    await admin?.close();
    await database?.drop();
  });

  const validate = (sql: string) => callTool(server, bearer, 'validate_cube_sql', { connection: 'self', sql });

  it('refuses 60 MB cells with a tool result naming the cap, and the server grows by less than 100 MiB', async () => {
    // A running server has used `self` before: its sandbox exists before the attack.
    expect((await validate('select 1 as one')).isError).to.equal(false);
    const before = residentMiB(server.process.pid!);
    const answer = await validate(`select repeat('x', 60000000) as blob from generate_series(1, 5)`);
    expect(answer.isError, answer.text).to.equal(true);
    expect(answer.text).to.contain('query failed: a value in column "blob" is larger than 1 MiB, the cap for one cell');
    const after = residentMiB(server.process.pid!);
    console.log(`      resident ${before.toFixed(0)} MiB before, ${after.toFixed(0)} MiB after`);
    expect(after - before, `resident ${before.toFixed(0)} MiB before, ${after.toFixed(0)} MiB after`).to.be.below(100);
    // And the sandbox still answers.
    const next = await validate('select 2 as two');
    expect(next.isError, next.text).to.equal(false);
  });
});
