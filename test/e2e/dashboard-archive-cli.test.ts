import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ManageConnections } from '../../application/connections/manage-connections.js';
import { AccountStore } from '../../application/ports/account-store.js';
import { DashboardStore } from '../../application/ports/dashboard-store.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { progressReporter } from '../../shells/cli/progress.js';
import { createUser, expectSameDashboards, principalOf, publishFixtureDashboards, snapshotOwner, type DashboardSnapshot } from '../support/archive-fixtures.js';
import { createTestDatabase, createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { createTestWarehouse, type TestWarehouse } from '../support/warehouse.js';
import { registry } from '../support/refresh-fixtures.js';
import { testSettings } from '../support/settings.js';
import { runDashpub as dashpub, spawnDashpub } from '../support/cli.js';
import { aWorkspace } from '../support/mothers.js';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const SLUGS = ['kpis', 'live', 'report', 'sales', 'secret', 'wh'];

/** `dashpub dashboard export` / `import` through runCli (once each as the binary) on PostgreSQL. */
describe('e2e: dashpub dashboard export / import (PostgreSQL)', function () {
  this.timeout(120_000);
  let source: TestDatabase;
  let warehouse: TestWarehouse;
  let fresh: TestDatabase | undefined;
  let app: AppContainer;
  let env: NodeJS.ProcessEnv;
  let work: string;
  let archive: string;
  let connectionId: string;
  let original: Map<string, DashboardSnapshot>;

  before(async () => {
    source = await createMigratedTestDatabase();
    env = { DATABASE_URL: source.url, REDIS_URL: '' };
    app = await buildContainer(testSettings({ databaseUrl: source.url }), { role: 'cli' });
    work = await mkdtemp(path.join(os.tmpdir(), 'dashpub-archive-'));
    archive = path.join(work, 'archive');
    const ada = await createUser(app.container, 'ada', 'pro');
    // An empty database stands in for a warehouse (the connection test only runs SELECT 1); not the
    // service's own, which no connection may name.
    warehouse = await createTestWarehouse();
    connectionId = (await app.container.get(ManageConnections).create({ ownerUserId: ada.id, workspaceId: null, label: 'Warehouse', url: warehouse.url })).id;
    await publishFixtureDashboards(app.container, ada.id, connectionId);
    original = await snapshotOwner(app.container, { kind: 'user', id: ada.id });
    expect([...original.keys()]).to.deep.equal(SLUGS);
  });
  after(async () => {
    await app?.close();
    await source?.drop();
    await warehouse?.drop();
    await fresh?.drop();
    if (work) await rm(work, { recursive: true, force: true });
  });

  const ownerRef = async (container: AppContainer['container'], handle: string) => ({
    kind: 'user' as const,
    id: (await container.get<AccountStore>(AccountStore).findUserByHandle(handle))!.id,
  });

  it('exports every dashboard with its versions, aliases, schedule and files, one progress line each on stderr', async () => {
    const run = await spawnDashpub(env, ['dashboard', 'export', '--owner', 'ada', '--out', archive]);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr.trim().split('\n')).to.deep.equal(SLUGS.map((slug, i) => `${i + 1}/6 dashboards  ${slug}`));
    expect(run.stdout).to.match(/^exported 6 dashboards \(8 versions, \d+ files, \d+ bytes\) of personal ada to .*archive\n$/);
    expect(await readdir(work)).to.deep.equal(['archive']); // no staging directory left beside it

    const manifest = JSON.parse(await readFile(path.join(archive, 'dashpub-export.json'), 'utf8'));
    expect(manifest).to.include({ format: 'dashpub-export', version: 1 });
    expect(manifest.source).to.deep.equal({ kind: 'personal', name: 'ada' });
    expect(Date.parse(manifest.exported_at)).to.be.closeTo(Date.now(), 60_000);
    const bySlug = Object.fromEntries(manifest.dashboards.map((d: { slug: string }) => [d.slug, d]));
    expect(Object.keys(bySlug)).to.deep.equal(SLUGS);
    const sales = bySlug.sales;
    expect(sales).to.include({ name: 'Sales', chart: 'bar', visibility: 'public', connection: 'self', refresh_schedule: null });
    expect(sales.tags).to.deep.equal(['finance', 'weekly']);
    expect(sales.versions.map((v: { name: string | null; current: boolean }) => [v.name, v.current])).to.deep.equal([
      [null, false],
      ['launch', false],
      [null, true],
    ]);
    expect(Object.keys(sales.versions[1].files).sort()).to.deep.equal(['data.csv', 'index.html']);
    expect(bySlug.report.aliases).to.deep.equal(['old-report']);
    expect(bySlug.secret.visibility).to.equal('private');
    expect(bySlug.kpis.versions[0].spec.data).to.deep.equal({ k: [{ label: 'users', n: 42 }] });
    expect(bySlug.live.refresh_schedule).to.deep.equal({ cron: '0 6 * * *', timezone: 'Europe/Paris' });
    expect(bySlug.wh.connection).to.equal(connectionId);

    // Each distinct file once, named by the hash of its bytes, and nothing else.
    const referenced = new Set<string>();
    for (const d of manifest.dashboards) for (const v of d.versions) for (const f of Object.values(v.files) as Array<{ sha256: string }>) referenced.add(f.sha256);
    const stored = await readdir(path.join(archive, 'files'));
    expect(stored.sort()).to.deep.equal([...referenced].sort());
    for (const name of stored) expect(sha256(await readFile(path.join(archive, 'files', name)))).to.equal(name);
  });

  it('prints a machine summary with --json and refuses a non-empty --out, touching nothing', async () => {
    const out = path.join(work, 'json-archive');
    const run = await dashpub(env, ['--json', 'dashboard', 'export', '--owner', 'ada', '--out', out]);
    expect(run.code, run.stderr).to.equal(0);
    const summary = JSON.parse(run.stdout);
    expect(summary).to.include({ out, exported: 6, versions: 8 });
    expect(summary.files).to.be.a('number').and.to.be.greaterThan(6);
    expect(summary.dashboards).to.deep.equal(SLUGS.map((slug) => ({ slug, outcome: 'exported' })));

    const occupied = path.join(work, 'occupied');
    await mkdir(occupied);
    await writeFile(path.join(occupied, 'keep.txt'), 'mine');
    const refused = await dashpub(env, ['dashboard', 'export', '--owner', 'ada', '--out', occupied]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr.trim()).to.equal(`error: --out ${occupied} is not empty; give a new or empty directory`);
    expect(await readdir(occupied)).to.deep.equal(['keep.txt']);
    expect((await readdir(work)).sort()).to.deep.equal(['archive', 'json-archive', 'occupied']);

    const both = await dashpub(env, ['dashboard', 'export', '--owner', 'ada', '--workspace', 'x', '--out', path.join(work, 'n')]);
    expect(both.code).to.equal(2);
    expect(both.stderr).to.contain('error: export needs exactly one of --owner <handle> or --workspace <slug>');
    const neither = await dashpub(env, ['dashboard', 'import', '--from', archive]);
    expect(neither.code).to.equal(2);
    expect(neither.stderr).to.contain('error: import needs exactly one of --owner <handle> or --workspace <slug>');
  });

  it('imports into another user of the same instance with new ids, everything else preserved', async () => {
    await createUser(app.container, 'bob');
    const run = await spawnDashpub(env, ['--json', 'dashboard', 'import', '--owner', 'bob', '--from', archive]);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stderr.trim().split('\n')).to.deep.equal(SLUGS.map((slug, i) => `${i + 1}/6 dashboards  ${slug}`));
    const report = JSON.parse(run.stdout);
    expect(report).to.include({ imported: 6, skipped: 0, refused: 0 });
    expect(report.target).to.deep.equal({ kind: 'personal', name: 'bob' });
    expect(report.dashboards.map((d: { slug: string; outcome: string }) => `${d.slug}:${d.outcome}`)).to.deep.equal(SLUGS.map((s) => `${s}:imported`));
    const wh = report.dashboards.find((d: { slug: string }) => d.slug === 'wh');
    expect(wh.warnings).to.deep.equal([
      `connection ${connectionId} is not one of bob's connections, so "wh" will not refresh until it is bound to one of them (update_dashboard with "connection")`,
    ]);
    expect(report.dashboards.filter((d: { warnings: string[] }) => d.warnings.length > 0)).to.have.length(1);

    const bob = await ownerRef(app.container, 'bob');
    const copy = await snapshotOwner(app.container, bob);
    expectSameDashboards(copy, original);
    for (const d of copy.values()) expect(d.record.createdBy).to.equal(bob.id);
    // The alias redirects for bob as it did for ada, and the MCP tools see the versions.
    const store = app.container.get<DashboardStore>(DashboardStore);
    expect((await store.findAlias(bob, 'old-report'))!.dashboardId).to.equal(copy.get('report')!.record.id);
    const listed = await registry(app.container).call(principalOf(bob.id), 'list_dashboard_versions', { slug: 'sales' });
    expect(listed.isError).to.not.equal(true);
    expect(listed.content[0]!.text).to.contain('launch');
  });

  it('imports into a workspace recording its admin, keeping the archive\'s visibility', async () => {
    const accounts = app.container.get<AccountStore>(AccountStore);
    const team = await aWorkspace(accounts, { slug: 'team' });
    const lonely = await aWorkspace(accounts, { slug: 'lonely', name: 'No admin' });
    const carl = await createUser(app.container, 'carl');
    await accounts.addMember(lonely.id, carl.id, 'member');
    await accounts.addMember(team.id, carl.id, 'member');
    const admin = await createUser(app.container, 'tess');
    await accounts.addMember(team.id, admin.id, 'admin');

    const refused = await dashpub(env, ['dashboard', 'import', '--workspace', 'lonely', '--from', archive]);
    expect(refused.code).to.equal(1);
    expect(refused.stderr).to.match(/^error: workspace "lonely" has no admin member/);

    const run = await dashpub(env, ['dashboard', 'import', '--workspace', 'team', '--from', archive]);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain('imported 6 of 6 dashboards into workspace team (0 skipped, 0 refused)');
    const copy = await snapshotOwner(app.container, { kind: 'workspace', id: team.id });
    expectSameDashboards(copy, original);
    expect(copy.get('sales')!.record.visibility).to.equal('public'); // not the workspace default (private)
    for (const d of copy.values()) expect(d.record.createdBy).to.equal(admin.id);
  });

  it('imports into a fresh database with the same dashboards, versions, aliases and bytes', async () => {
    fresh = await createTestDatabase();
    const other = await buildContainer(testSettings({ databaseUrl: fresh.url }), { role: 'cli' });
    try {
      await createUser(other.container, 'ada');
      const run = await dashpub({ DATABASE_URL: fresh.url, REDIS_URL: '' }, ['dashboard', 'import', '--owner', 'ada', '--from', archive]);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout.trim().split('\n')).to.include.members(['sales  imported', 'report  imported', `  warning: connection ${connectionId} is not one of ada's connections, so "wh" will not refresh until it is bound to one of them (update_dashboard with "connection")`]);
      expectSameDashboards(await snapshotOwner(other.container, await ownerRef(other.container, 'ada')), original);
    } finally {
      await other.close();
    }
  });

  it('skips a dashboard whose slug exists, imports the rest, reports a taken alias, and exits 1', async () => {
    const dora = await createUser(app.container, 'dora');
    const tools = registry(app.container);
    await tools.call(principalOf(dora.id), 'publish_dashboard', { path: 'sales', body: 'dora\'s own' });
    await tools.call(principalOf(dora.id), 'publish_dashboard', { path: 'old-report', body: 'dora\'s report' });
    const owner = { kind: 'user' as const, id: dora.id };
    const before = (await snapshotOwner(app.container, owner)).get('sales')!;

    const run = await dashpub(env, ['dashboard', 'import', '--owner', 'dora', '--from', archive]);
    expect(run.code, run.stderr).to.equal(1);
    const lines = run.stdout.trim().split('\n');
    expect(lines).to.include('sales  skipped: slug exists');
    expect(lines).to.include('  warning: alias "old-report" was not recreated: the slug is taken');
    expect(lines[lines.length - 1]).to.equal('imported 5 of 6 dashboards into personal dora (1 skipped, 0 refused)');
    const after = await snapshotOwner(app.container, owner);
    expect(after.get('sales')).to.deep.equal(before);
    expect(after.get('report')!.aliases).to.deep.equal([]);
    expectSameDashboards(new Map([...after].filter(([slug]) => !['sales', 'old-report', 'report'].includes(slug))), original, ['kpis', 'live', 'secret', 'wh']);
  });

  it('refuses an archive with a corrupted file, naming it, with nothing written', async () => {
    const corrupted = path.join(work, 'corrupted');
    await cp(archive, corrupted, { recursive: true });
    const manifest = JSON.parse(await readFile(path.join(corrupted, 'dashpub-export.json'), 'utf8'));
    const secretSha = manifest.dashboards.find((d: { slug: string }) => d.slug === 'secret').versions[0].files['index.html'].sha256;
    await writeFile(path.join(corrupted, 'files', secretSha), '<p>tampered</p>');
    await createUser(app.container, 'erin');

    const run = await dashpub(env, ['--json', 'dashboard', 'import', '--owner', 'erin', '--from', corrupted]);
    expect(run.code).to.equal(1);
    expect(run.stdout).to.equal('');
    const error = JSON.parse(run.stderr);
    expect(error.error).to.equal('invalid_argument');
    expect(error.message).to.match(
      new RegExp(`^archive refused, nothing was imported: dashboard "secret", version 1, "index.html": file ${secretSha} is corrupted \\(its bytes hash to [0-9a-f]{64}\\)$`),
    );
    expect((await snapshotOwner(app.container, await ownerRef(app.container, 'erin'))).size).to.equal(0);

    // A link in place of a file (here to the real bytes, which would hash right) is refused all the same.
    const linked = path.join(work, 'linked');
    await cp(archive, linked, { recursive: true });
    const target = path.join(work, 'outside-the-archive');
    await cp(path.join(linked, 'files', secretSha), target);
    await rm(path.join(linked, 'files', secretSha));
    await symlink(target, path.join(linked, 'files', secretSha));
    const viaLink = await dashpub(env, ['dashboard', 'import', '--owner', 'erin', '--from', linked]);
    expect(viaLink.code).to.equal(1);
    expect(viaLink.stderr.trim()).to.equal(
      `error: archive refused, nothing was imported: ${path.join(linked, 'files', secretSha)} is not a regular file (links and special files are refused)`,
    );
    expect((await snapshotOwner(app.container, await ownerRef(app.container, 'erin'))).size).to.equal(0);

    const missing = await dashpub(env, ['dashboard', 'import', '--owner', 'erin', '--from', path.join(work, 'nowhere')]);
    expect(missing.code).to.equal(1);
    expect(missing.stderr.trim()).to.equal(`error: ${path.join(work, 'nowhere')} is not a dashpub export archive: it has no dashpub-export.json`);
  });
});

describe('cli: progress reporter', () => {
  it('redraws one bar on a terminal and writes one line per dashboard elsewhere', () => {
    const written: string[] = [];
    const tty = progressReporter({ isTTY: true, columns: 120, write: (t: string) => written.push(t) });
    tty.update(12, 30, 'sales');
    tty.update(30, 30, 'x');
    tty.finish();
    expect(written).to.deep.equal(['\r[########------------] 12/30 dashboards  sales\x1b[K', '\r[####################] 30/30 dashboards  x\x1b[K', '\n']);
    const lines: string[] = [];
    const plain = progressReporter({ isTTY: false, write: (t: string) => lines.push(t) });
    plain.update(1, 2, 'a');
    plain.update(2, 2, 'b');
    plain.finish();
    expect(lines).to.deep.equal(['1/2 dashboards  a\n', '2/2 dashboards  b\n']);
  });
});
