import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import pg from 'pg';
import { AccountStore } from '../../application/ports/account-store.js';
import { DashboardStore } from '../../application/ports/dashboard-store.js';
import { PasswordHasher } from '../../application/ports/password-hasher.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { CLI, runDashpub, spawnDashpub, type CliRun } from '../support/cli.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { aPrincipal, aUser, aWorkspace, workspaceLock } from '../support/mothers.js';
import { registry } from '../support/refresh-fixtures.js';
import { TEST_SECRET_KEY, testSettings } from '../support/settings.js';

const PASSWORD = 'correct horse battery staple';
const SHARE_URL = /^http:\/\/ada\.dash\.localhost:8787\/_share\/([A-Za-z0-9_-]{43})$/;
const JSON_KEYS = ['id', 'slug', 'label', 'status', 'password', 'expires_at', 'pinned_version_id', 'views', 'last_used_at', 'created_at'];
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** `dashpub share …` through runCli (once as the binary, once on a terminal) against PostgreSQL. */
describe('e2e: dashpub share (PostgreSQL)', function () {
  this.timeout(180_000);
  let database: TestDatabase;
  let app: AppContainer;
  let env: NodeJS.ProcessEnv;
  let db: pg.Client;
  let versions: { first: string; current: string; bobs: string };
  /** Every CLI run, so the last test can check none printed a secret. */
  const runs: CliRun[] = [];
  /** In-process unless `cli` says otherwise (spawnDashpub, for the binary itself). */
  const run = async (args: string[], stdin = '', cli = runDashpub) => {
    const result = await cli(env, args, stdin);
    runs.push(result);
    return result;
  };
  const ok = async (args: string[], stdin = '', cli = runDashpub) => {
    const result = await run(args, stdin, cli);
    expect(result.code, result.stderr).to.equal(0);
    return result;
  };
  const refused = async (args: string[], stdin = '') => {
    const result = await run(args, stdin);
    expect(result.code, result.stdout).to.equal(1);
    expect(result.stdout).to.equal('');
    expect(result.stderr.split('\n').filter(Boolean), result.stderr).to.have.length(1);
    return result.stderr.trim();
  };

  before(async () => {
    database = await createMigratedTestDatabase();
    env = { DATABASE_URL: database.url, REDIS_URL: '' };
    app = await buildContainer(testSettings({ databaseUrl: database.url }), { role: 'cli' });
    const accounts = app.container.get<AccountStore>(AccountStore);
    const [ada, bob] = [await aUser(accounts, { handle: 'ada' }), await aUser(accounts, { handle: 'bob' })];
    const acme = await aWorkspace(accounts, { slug: 'acme' });
    await accounts.addMember(acme.id, ada.id, 'admin');
    const tools = registry(app.container);
    const publish = async (userId: string, path: string, body: string, lock = aPrincipal(userId)) =>
      expect((await tools.call(lock, 'publish_dashboard', { path, body })).isError).to.not.equal(true);
    await publish(ada.id, 'sales', '<h1>v1</h1>');
    await publish(ada.id, 'sales', '<h1>v2</h1>');
    await publish(ada.id, 'notes', '<p>notes</p>');
    await publish(bob.id, 'bobs', '<p>bob</p>');
    await publish(ada.id, 'roadmap', '<p>team</p>', aPrincipal(ada.id, { lock: workspaceLock(acme) }));
    const store = app.container.get<DashboardStore>(DashboardStore);
    const sales = (await store.findDashboard({ kind: 'user', id: ada.id }, 'sales'))!;
    const salesVersions = await store.listVersions(sales.id);
    const bobs = (await store.findDashboard({ kind: 'user', id: bob.id }, 'bobs'))!;
    versions = { first: salesVersions.find((v) => v.seq === 1)!.id, current: sales.currentVersionId, bobs: bobs.currentVersionId };
    db = new pg.Client({ connectionString: database.url });
    await db.connect();
  });
  after(async () => {
    await db?.end();
    await app?.close();
    await database?.drop();
  });

  let linkId: string;
  let token: string;

  it('creates a link with a password from stdin, an expiry, a pin and a label, printing the URL once', async () => {
    const created = await ok(['share', 'create', '--owner', 'ada', '--slug', 'sales', '--label', 'Board', '--password-stdin', '--expires-in', '7d', '--pin', versions.first], `${PASSWORD}\n`, spawnDashpub);
    expect(created.database).to.match(/^using the database at /);
    const lines = created.stdout.trimEnd().split('\n');
    expect(lines).to.have.length(3);
    expect(lines[0]).to.match(/^created share link [0-9a-f-]{36} to ada\/sales \("Board"\)$/);
    token = SHARE_URL.exec(lines[1]!)![1]!;
    expect(lines[2]).to.equal('This URL is not shown again: copy it now. Anyone holding it can view the dashboard.');
    expect(created.stdout.split(token)).to.have.length(2);
    linkId = /link (\S+)/.exec(lines[0]!)![1]!;

    const { rows } = await db.query('SELECT token_hash, password_hash, label, pinned_version_id, expires_at, paused FROM share_links WHERE id = $1', [linkId]);
    expect(rows[0]).to.deep.include({ token_hash: sha256(token), label: 'Board', pinned_version_id: versions.first, paused: false });
    expect(await app.container.get<PasswordHasher>(PasswordHasher).verify(PASSWORD, rows[0].password_hash)).to.equal(true);
    expect((rows[0].expires_at as Date).getTime() - Date.now()).to.be.within(7 * 86_400_000 - 120_000, 7 * 86_400_000);
  });

  it('with --json, answers the link with its URL and never a hash', async () => {
    const created = await ok(['--json', 'share', 'create', '--owner', 'ada', '--slug', 'notes', '--expires-at', '2027-01-31T18:00:00Z']);
    const json = JSON.parse(created.stdout);
    expect(Object.keys(json)).to.deep.equal([...JSON_KEYS, 'url']);
    expect(json).to.deep.include({ slug: 'notes', label: null, status: 'active', password: false, expires_at: '2027-01-31T18:00:00.000Z', pinned_version_id: null, views: 0, last_used_at: null });
    const jsonToken = SHARE_URL.exec(json.url)![1]!;
    expect(created.stdout.split(jsonToken)).to.have.length(2);
    const { rows } = await db.query('SELECT token_hash FROM share_links WHERE id = $1', [json.id]);
    expect(rows[0].token_hash).to.equal(sha256(jsonToken));
  });

  it('lists by owner and by slug, as a table and as JSON, never with a URL, token or hash', async () => {
    const all = JSON.parse((await ok(['--json', 'share', 'list', '--owner', 'ada'])).stdout);
    expect(all.map((l: { slug: string }) => l.slug)).to.deep.equal(['notes', 'sales']);
    for (const link of all) expect(Object.keys(link)).to.deep.equal(JSON_KEYS);
    expect(all[1]).to.deep.include({ id: linkId, label: 'Board', status: 'active', password: true, pinned_version_id: versions.first });
    const one = JSON.parse((await ok(['--json', 'share', 'list', '--owner', 'ada', '--slug', 'sales'])).stdout);
    expect(one.map((l: { id: string }) => l.id)).to.deep.equal([linkId]);

    const listed = await ok(['share', 'list', '--owner', 'ada', '--slug', 'sales']);
    const [header, row, ...rest] = listed.stdout.trimEnd().split('\n');
    expect(header!.split(/\s+/)).to.deep.equal(['ID', 'SLUG', 'LABEL', 'STATUS', 'PASSWORD', 'EXPIRES', 'PINNED', 'VIEWS', 'LAST_USED']);
    expect(row!.split(/\s+/).slice(0, 8)).to.deep.equal([linkId, 'sales', 'Board', 'active', 'yes', all[1].expires_at, versions.first, '0']);
    expect(rest).to.deep.equal([]);
    expect(listed.stdout).to.not.contain('_share').and.not.contain(sha256(token));
    expect((await ok(['share', 'list', '--workspace', 'acme'])).stdout.trim()).to.equal('(none)');
    expect((await ok(['share', 'list', '--owner', 'bob'])).stdout.trim()).to.equal('(none)');
  });

  it('pauses, resumes and revokes by id, each changing the status', async () => {
    const paused = await ok(['share', 'pause', linkId]);
    expect(paused.stdout.trim()).to.equal(`share link ${linkId} to ada/sales: paused`);
    expect((await db.query('SELECT paused FROM share_links WHERE id = $1', [linkId])).rows[0].paused).to.equal(true);
    const listed = JSON.parse((await ok(['--json', 'share', 'list', '--owner', 'ada', '--slug', 'sales'])).stdout);
    expect(listed[0].status).to.equal('paused');
    const resumed = JSON.parse((await ok(['--json', 'share', 'resume', linkId])).stdout);
    expect(Object.keys(resumed)).to.deep.equal(JSON_KEYS);
    expect(resumed).to.deep.include({ id: linkId, status: 'active' });
    const revoked = await ok(['share', 'revoke', linkId.toUpperCase()]);
    expect(revoked.stdout.trim()).to.equal(`share link ${linkId} to ada/sales: revoked (its URL no longer opens the dashboard)`);
    expect((await db.query('SELECT count(*)::int AS n FROM share_links WHERE id = $1', [linkId])).rows[0].n).to.equal(0);
    expect(await refused(['share', 'pause', linkId])).to.equal('error: No such share link');
  });

  it('refuses unknown ids, owners and dashboards with one clear line', async () => {
    expect(await refused(['share', 'resume', '00000000-0000-4000-8000-000000000000'])).to.equal('error: No such share link');
    expect(await refused(['share', 'revoke', "1' OR '1'='1"])).to.equal('error: No such share link');
    const json = await run(['--json', 'share', 'pause', 'nope']);
    expect([json.code, JSON.parse(json.stderr)]).to.deep.equal([1, { error: 'not_found', message: 'No such share link' }]);
    expect(await refused(['share', 'create', '--owner', 'nobody', '--slug', 'sales'])).to.equal('error: no user with handle "nobody"');
    expect(await refused(['share', 'create', '--owner', 'ada', '--slug', 'missing'])).to.equal('error: No such dashboard');
    expect(await refused(['share', 'create', '--workspace', 'acme', '--slug', 'sales'])).to.equal('error: No such dashboard');
    const both = 'error: pass exactly one of --owner <handle> or --workspace <slug>';
    expect(await refused(['share', 'create', '--owner', 'ada', '--workspace', 'acme', '--slug', 'sales'])).to.equal(both);
    expect(await refused(['share', 'list'])).to.equal(both);
    const usage = await run(['share', 'create', '--owner', 'ada']);
    expect([usage.code, usage.stderr]).to.satisfy(([code, stderr]: [number, string]) => code === 2 && stderr.includes("required option '--slug <slug>' not specified"));
  });

  it('refuses bad durations, dates, pins, labels and passwords, creating nothing', async () => {
    const before = (await db.query('SELECT count(*)::int AS n FROM share_links')).rows[0].n;
    const create = (...args: string[]) => ['share', 'create', '--owner', 'ada', '--slug', 'sales', ...args];
    expect(await refused(create('--expires-in', '7days'))).to.equal('error: --expires-in must be a whole number and a unit: 30m, 12h, 7d or 2w (got "7days")');
    expect(await refused(create('--expires-in', '60w'))).to.equal('error: expiry must be within a year');
    const iso = (got: string) => `error: --expires-at must be an ISO 8601 date-time with a zone, such as 2026-12-31T18:00:00Z (got "${got}")`;
    expect(await refused(create('--expires-at', 'tomorrow'))).to.equal(iso('tomorrow'));
    expect(await refused(create('--expires-at', '2027-01-31T18:00:00'))).to.equal(iso('2027-01-31T18:00:00'));
    expect(await refused(create('--expires-at', '2027-13-45T00:00:00Z'))).to.equal(iso('2027-13-45T00:00:00Z'));
    expect(await refused(create('--expires-at', '2020-01-01T00:00:00Z'))).to.equal('error: expiry must be in the future');
    expect(await refused(create('--expires-in', '7d', '--expires-at', '2027-01-31T18:00:00Z'))).to.equal('error: give at most one of --expires-in or --expires-at');
    expect(await refused(create('--pin', 'v1'))).to.equal('error: No version "v1" of this dashboard');
    // Another owner's version cannot be pinned onto this dashboard.
    expect(await refused(create('--pin', versions.bobs))).to.equal(`error: No version "${versions.bobs}" of this dashboard`);
    expect(await refused(create('--label', 'a\u0007b'))).to.equal('error: label must not contain control characters');
    expect(await refused(create('--password-stdin'), 'short\n')).to.equal('error: password must be at least 10 characters');
    expect(await refused(create('--password-stdin'), '\n')).to.equal(
      'error: --password-stdin read an empty password; pipe the password in, or leave the option out for a link without one',
    );
    expect((await db.query('SELECT count(*)::int AS n FROM share_links')).rows[0].n).to.equal(before);
  });

  it('refuses to read the password from a terminal, where it would show as typed', async () => {
    // util-linux `script` gives the CLI a pseudo-terminal as its standard input.
    const command = [process.execPath, CLI, 'share', 'create', '--owner', 'ada', '--slug', 'sales', '--password-stdin'].map((a) => `'${a}'`).join(' ');
    const childEnv = { ...process.env, ...env, LOG_LEVEL: 'warn', SECRET_KEY: TEST_SECRET_KEY };
    const child = spawn('script', ['-qec', command, '/dev/null'], { env: childEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code, output).to.equal(1);
    expect(output).to.contain('error: --password-stdin reads the password from a pipe or a file, not from a terminal, where it would show as you type');
  });

  it('acts on any link by id (the CLI is the operator), while --owner scopes what lists show', async () => {
    const bobs = JSON.parse((await ok(['--json', 'share', 'create', '--owner', 'bob', '--slug', 'bobs', '--pin', versions.bobs])).stdout);
    expect(bobs.pinned_version_id).to.equal(versions.bobs);
    expect(await refused(['share', 'list', '--owner', 'bob', '--slug', 'sales'])).to.equal('error: No such dashboard');
    const adas = JSON.parse((await ok(['--json', 'share', 'list', '--owner', 'ada'])).stdout);
    expect(adas.map((l: { id: string }) => l.id)).to.not.include(bobs.id);
    expect(JSON.parse((await ok(['--json', 'share', 'pause', bobs.id])).stdout).status).to.equal('paused');
    const team = JSON.parse((await ok(['--json', 'share', 'create', '--workspace', 'acme', '--slug', 'roadmap'])).stdout);
    expect(team.url).to.match(/^http:\/\/acme\.dash\.localhost:8787\/_share\/[A-Za-z0-9_-]{43}$/);
    expect(JSON.parse((await ok(['--json', 'share', 'list', '--workspace', 'acme'])).stdout).map((l: { id: string }) => l.id)).to.deep.equal([team.id]);
  });

  it('keeps the token and password out of the database in clear and out of every output but the one URL', async () => {
    const { rows } = await db.query('SELECT row_to_json(s)::text AS row FROM share_links s UNION ALL SELECT row_to_json(x)::text FROM share_sessions x');
    const stored = rows.map((r) => r.row as string).join('\n');
    expect(stored).to.not.contain(PASSWORD).and.not.contain(token);
    const outputs = runs.map((r) => `${r.stdout}\n${r.stderr}\n${r.database ?? ''}`);
    expect(outputs.filter((o) => o.includes(PASSWORD))).to.deep.equal([]);
    expect(outputs.filter((o) => o.includes(token))).to.have.length(1);
    expect(outputs.filter((o) => /\bat .*\.js:\d+/.test(o))).to.deep.equal([]);
  });
});
