import { expect } from 'chai';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { createTestWarehouse, type TestWarehouse } from '../support/warehouse.js';
import { runDashpub as dashpub, spawnDashpub } from '../support/cli.js';
import { SECRET_KEY_REQUIRED } from '../../adapters/crypto/secret-box.js';

/** The `dashpub` admin CLI against PostgreSQL: in-process through runCli, and each command family once as the binary. */
describe('e2e: dashpub CLI (PostgreSQL)', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let warehouse: TestWarehouse;
  let env: NodeJS.ProcessEnv;

  before(async () => {
    database = await createTestDatabase();
    warehouse = await createTestWarehouse();
    env = { DATABASE_URL: database.url, REDIS_URL: '', ALLOW_PRIVATE_WAREHOUSES: 'true' };
  });
  after(async () => {
    await database?.drop();
    await warehouse?.drop();
  });

  it('migrates, then reports the database is up to date', async () => {
    const first = await spawnDashpub(env, ['--json', 'migrate']);
    expect(first.code, first.stderr).to.equal(0);
    const { host, port, pathname } = new URL(database.url);
    expect(first.database).to.equal(`using the database at ${host.replace(/:\d+$/, '')}:${port || '5432'}${pathname}`);
    expect(JSON.parse(first.stdout).applied.length).to.be.greaterThan(0);
    const again = await dashpub(env, ['migrate']);
    expect(again.stdout.trim()).to.equal('database is up to date');
  });

  it('refuses to serve PostgreSQL without SECRET_KEY, saying why', async () => {
    const run = await spawnDashpub({ ...env, SECRET_KEY: '', PORT: '0' }, ['serve']);
    expect(run.code).to.equal(3);
    expect(run.stderr.trim()).to.equal(`error: ${SECRET_KEY_REQUIRED}`);
  });

  it('adds and lists users, with a password read from stdin, and changes a plan', async () => {
    const added = await dashpub(env, ['user', 'add', '--handle', 'ada', '--email', 'Ada@Example.com', '--password-stdin', '--json'], 'correct horse battery\n');
    expect(added.code, added.stderr).to.equal(0);
    const user = JSON.parse(added.stdout);
    expect(user).to.include({ handle: 'ada', email: 'ada@example.com', plan: 'free', hasPassword: true });
    expect(user).to.not.have.property('passwordHash');
    const plan = await dashpub(env, ['user', 'set-plan', 'ada', 'pro']);
    expect(plan.stdout.trim()).to.equal('ada is now on the pro plan');
    const listed = JSON.parse((await dashpub(env, ['--json', 'user', 'list'])).stdout);
    expect(listed.map((u: { handle: string; plan: string }) => `${u.handle}:${u.plan}`)).to.deep.equal(['ada:pro']);
  });

  it('refuses bad input with clear errors and non-zero exit codes', async () => {
    const taken = await dashpub(env, ['user', 'add', '--handle', 'ada', '--email', 'other@example.com']);
    expect(taken.code).to.equal(1);
    expect(taken.stderr.trim()).to.equal('error: handle "ada" is taken');
    const reserved = await dashpub(env, ['user', 'add', '--handle', 'www', '--email', 'w@example.com']);
    expect(reserved.stderr.trim()).to.equal('error: handle "www" is reserved');
    const plan = await dashpub(env, ['--json', 'user', 'set-plan', 'ada', 'gold']);
    expect(plan.code).to.equal(1);
    expect(JSON.parse(plan.stderr)).to.deep.equal({ error: 'invalid_argument', message: 'plan must be "free" or "pro" (got "gold")' });
    const shortPassword = await dashpub(env, ['user', 'add', '--handle', 'bob', '--email', 'b@example.com', '--password-stdin'], 'short');
    expect(shortPassword.stderr.trim()).to.equal('error: password must be at least 10 characters');
    const usage = await dashpub(env, ['user', 'add', '--handle', 'x']);
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.contain("required option '--email <email>' not specified");
    expect((await dashpub(env, ['nonsense'])).code).to.equal(2);
  });

  it('creates workspaces and members, and lists dashboards', async () => {
    const ws = await spawnDashpub(env, ['workspace', 'add', '--slug', 'acme', '--name', 'Acme Inc']);
    expect(ws.code, ws.stderr).to.equal(0);
    expect(ws.stdout).to.match(/^created workspace acme \("Acme Inc"\)/);
    const clash = await dashpub(env, ['workspace', 'add', '--slug', 'ada', '--name', 'Clash']);
    expect(clash.stderr.trim()).to.equal('error: workspace slug "ada" is taken');
    const member = await dashpub(env, ['workspace', 'member', 'add', '--workspace', 'acme', '--user', 'ada', '--role', 'admin']);
    expect(member.stdout.trim()).to.equal('ada is an admin of acme');
    const missing = await dashpub(env, ['workspace', 'member', 'add', '--workspace', 'nope', '--user', 'ada']);
    expect(missing.stderr.trim()).to.equal('error: workspace "nope" not found');
    const none = await spawnDashpub(env, ['dashboard', 'list', '--owner', 'ada']);
    expect(none.stdout.trim()).to.equal('(none)');
    const listed = await dashpub(env, ['--json', 'dashboard', 'list', '--workspace', 'acme']);
    expect(JSON.parse(listed.stdout)).to.deep.equal([]);
  });

  it('adds, lists and tests warehouse connections, with the URL from stdin and never printed', async () => {
    // An empty database stands in for a warehouse: the connection test only connects and SELECTs 1.
    const added = await spawnDashpub(env, ['--json', 'connection', 'add', '--owner', 'ada', '--workspace', 'acme', '--label', 'Warehouse', '--url-stdin'], `${warehouse.url}\n`);
    expect(added.code, added.stderr).to.equal(0);
    const connection = JSON.parse(added.stdout);
    expect(connection).to.include({ label: 'Warehouse', status: 'active', scope: 'workspace' });
    expect(added.stdout).to.not.contain(warehouse.url);

    const listed = await dashpub(env, ['connection', 'list']);
    expect(listed.stdout).to.contain(connection.id).and.contain('Warehouse').and.not.contain('postgres://');
    const tested = await dashpub(env, ['connection', 'test', connection.id]);
    expect(tested.code, tested.stderr).to.equal(0);
    expect(tested.stdout.trim()).to.equal(`connection "Warehouse" ${connection.id}: active`);

    const disabled = await dashpub(env, ['connection', 'disable', connection.id]);
    expect([disabled.code, disabled.stdout.trim()]).to.deep.equal([0, `connection "Warehouse" ${connection.id}: disabled`]);
    // A test leaves a disabled connection alone; only enable puts it back (testing it at once).
    expect((await dashpub(env, ['connection', 'test', connection.id])).stdout.trim()).to.equal(`connection "Warehouse" ${connection.id}: disabled`);
    const enabled = await dashpub(env, ['--json', 'connection', 'enable', connection.id]);
    expect(enabled.code, enabled.stderr).to.equal(0);
    expect(JSON.parse(enabled.stdout)).to.include({ id: connection.id, status: 'active' });

    const dead = await dashpub(env, ['connection', 'add', '--owner', 'ada', '--label', 'Dead', '--url', 'postgres://nobody@127.0.0.1:1/none']);
    expect(dead.code, dead.stderr).to.equal(0);
    expect(dead.stdout).to.match(/^added connection "Dead" id \S+ status failing \(/);
    const deadId = /id (\S+)/.exec(dead.stdout)![1]!;
    const retest = await dashpub(env, ['connection', 'test', deadId]);
    expect(retest.code).to.equal(1);

    await dashpub(env, ['user', 'add', '--handle', 'free-user', '--email', 'free@example.com']);
    const free = await dashpub(env, ['connection', 'add', '--owner', 'free-user', '--label', 'X', '--url', database.url]);
    expect(free.code).to.equal(1);
    expect(free.stderr).to.match(/^error: .*pro/);
    const neither = await dashpub(env, ['connection', 'add', '--owner', 'ada', '--label', 'X']);
    expect(neither.code).to.equal(1);
    expect(neither.stderr.trim()).to.equal('error: give the connection URL with exactly one of --url <url> or --url-stdin');
  });

  it('refuses a warehouse on a private network unless ALLOW_PRIVATE_WAREHOUSES, and the service\'s own database always', async () => {
    const closed = { ...env, ALLOW_PRIVATE_WAREHOUSES: 'false' };
    const before = JSON.parse((await dashpub(env, ['--json', 'connection', 'list'])).stdout).length;
    const local = await dashpub(closed, ['connection', 'add', '--owner', 'ada', '--label', 'Local', '--url', warehouse.url]);
    expect(local.code).to.equal(1);
    expect(local.stderr.trim()).to.equal(
      'error: The warehouse host "127.0.0.1" is on a private network; this service only connects to public warehouses. ' +
        'Its operator can allow private networks with ALLOW_PRIVATE_WAREHOUSES=true.',
    );
    const own = await dashpub(env, ['connection', 'add', '--owner', 'ada', '--label', 'Own', '--url-stdin'], `${database.url.replace('127.0.0.1', 'localhost')}\n`);
    expect(own.code).to.equal(1);
    expect(own.stderr.trim()).to.equal("error: That URL leads to this service's own database server; add your warehouse, on a server of its own, instead.");
    expect(JSON.parse((await dashpub(env, ['--json', 'connection', 'list'])).stdout)).to.have.length(before);
  });
});

/** Which database a command opened, said on stderr; read-only commands never create the embedded one. */
describe('e2e: dashpub CLI names its database', function () {
  this.timeout(120_000);
  let work: string;
  // Neither DATABASE_URL nor DATA_DIR: the commands look for ./data in their working directory.
  const bare: NodeJS.ProcessEnv = { DATABASE_URL: '', DATA_DIR: undefined, REDIS_URL: '' };

  beforeEach(() => {
    work = mkdtempSync(path.join(tmpdir(), 'dashpub-cli-db-'));
  });
  afterEach(() => rmSync(work, { recursive: true, force: true }));

  it('refuses every read-only command away from a data directory, creating nothing and naming where it looked', async () => {
    const dataDir = path.join(work, 'data');
    const commands = [
      ['user', 'list'],
      ['workspace', 'list'],
      ['dashboard', 'list'],
      ['grant', 'list'],
      ['connection', 'list'],
      ['dashboard', 'export', '--owner', 'ada', '--out', 'archive'],
      ['share', 'list', '--owner', 'ada'],
      ['subscription', 'list', '--owner', 'ada'],
    ];
    for (const args of commands) {
      const run = await dashpub(bare, args, '', work);
      expect(run.code, args.join(' ')).to.equal(1);
      expect(run.stdout).to.equal('');
      expect(run.stderr.trim()).to.equal(
        `error: no embedded database in ${dataDir}; run this where the data directory is, or set DATA_DIR to it, or DATABASE_URL to a PostgreSQL server`,
      );
    }
    expect(readdirSync(work)).to.deep.equal([]);
    const json = await dashpub(bare, ['--json', 'user', 'list'], '', work);
    expect(JSON.parse(json.stderr)).to.include({ error: 'not_found' });
    expect(readdirSync(work)).to.deep.equal([]);
  });

  it('says a write command created the embedded database, and a later read that it used it', async () => {
    // As real processes: the embedded database and the working directory are the binary's own.
    const dataDir = path.join(work, 'data');
    const added = await spawnDashpub(bare, ['user', 'add', '--handle', 'ada', '--email', 'ada@example.com'], '', work);
    expect(added.code, added.stderr).to.equal(0);
    expect(added.database).to.equal(`creating the embedded database in ${dataDir}`);
    const listed = await spawnDashpub(bare, ['user', 'list'], '', work);
    expect(listed.code, listed.stderr).to.equal(0);
    expect(listed.database).to.equal(`using the embedded database in ${dataDir}`);
    expect(listed.stdout).to.contain('ada@example.com');
  });

  it('names the host, port and database of DATABASE_URL, never its user or password', async () => {
    const db = await createTestDatabase();
    try {
      const url = new URL(db.url);
      url.username = 'postgres';
      url.password = 'hunter2-secret'; // trust authentication on the test server ignores it
      const run = await dashpub({ DATABASE_URL: url.toString(), REDIS_URL: '' }, ['--json', 'user', 'list'], '', work);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.database).to.equal(`using the database at ${url.hostname}:${url.port || '5432'}${url.pathname}`);
      expect(run.database).to.not.contain('hunter2').and.not.contain('postgres@');
      expect(JSON.parse(run.stdout)).to.deep.equal([]);
    } finally {
      await db.drop();
    }
  });
});
