import { expect } from 'chai';
import type { Container } from 'inversify';
import { AccountStore } from '../../application/ports/account-store.js';
import type { Principal } from '../../application/ports/token-verifier.js';
import { PublishDashboard, type PublishCommand } from '../../application/dashboards/publish-dashboard.js';
import { UpdateDashboard } from '../../application/dashboards/update-dashboard.js';
import { RenameDashboard } from '../../application/dashboards/rename-dashboard.js';
import { DeleteDashboard } from '../../application/dashboards/delete-dashboard.js';
import { ListDashboards } from '../../application/dashboards/list-dashboards.js';
import { GetDashboard } from '../../application/dashboards/get-dashboard.js';
import { DashboardVersions } from '../../application/dashboards/dashboard-versions.js';
import { DashboardStore } from '../../application/ports/dashboard-store.js';
import { subdomainOf, type Target } from '../../domain/scope.js';
import { refusal } from '../support/refusal.js';
import { aUser, aPrincipal, workspaceLock, aWorkspace } from '../support/mothers.js';

export interface UseCaseHarness {
  container: Container;
  close(): Promise<void>;
}

/** The dashboard use cases, run once per storage (memory, PostgreSQL). */
export function describeDashboardUseCases(storage: string, makeHarness: () => Promise<UseCaseHarness>) {
  describe(`application: dashboard use cases (${storage})`, function () {
    this.timeout(60_000);
    let harness: UseCaseHarness;
    let ada: Principal;
    let bob: Principal;
    let adaInAcme: Principal;
    let seq = 0;
    const uniq = (p: string) => `${p}${Date.now().toString(36)}${seq++}`;

    before(async () => {
      harness = await makeHarness();
      const accounts = harness.container.get<AccountStore>(AccountStore);
      const a = await aUser(accounts, { handle: uniq('ada') });
      const b = await aUser(accounts, { handle: uniq('bob') });
      const acme = await aWorkspace(accounts, { slug: uniq('acme'), name: 'Acme' });
      await accounts.addMember(acme.id, a.id, 'admin');
      ada = aPrincipal(a.id, { grantId: 'g-ada' });
      bob = aPrincipal(b.id, { grantId: 'g-bob', lock: { kind: 'legacy' } });
      adaInAcme = aPrincipal(a.id, { grantId: 'g-acme', lock: workspaceLock(acme) });
    });
    after(async () => harness.close());

    const publish = (p: Principal, command: PublishCommand) => harness.container.get(PublishDashboard).execute(p, command);
    const versions = () => harness.container.get(DashboardVersions);
    const versionId = (r: { published: { version: { id: string } } | null }) => r.published!.version.id;
    const workspaceOf = (target: Target) => (target.kind === 'workspace' ? target.slug : null);

    // The canonical URL made of the target and slug is the presenter's (test/shells/dashboard-presenters.test.ts).
    it('publishes a new dashboard with defaults, in the caller\'s own account', async () => {
      const r = await publish(ada, { path: 'sales', body: '<h1>Sales</h1>' });
      expect(r.created).to.equal(true);
      expect(r.published?.dashboard.name).to.equal('sales');
      expect(r.published?.dashboard.visibility).to.equal('public');
      expect(r.target.kind).to.equal('personal');
      expect(subdomainOf(r.target)).to.match(/^ada[a-z0-9]+$/);
      expect(r.slug).to.equal('sales');
      expect(r.published?.dashboard.slug).to.equal('sales');
      expect(r.published?.dashboard.currentVersionId).to.equal(r.published?.version.id);
      expect(Object.keys(r.published!.version.files)).to.deep.equal(['index.html']);
      expect(r.published!.version.files['index.html']!.contentType).to.contain('text/html');
    });

    it('adds a second file and keeps the first; metadata survives a republish', async () => {
      await publish(ada, { path: 'multi', body: 'a', name: 'Multi', tags: ['x'] });
      const r = await publish(ada, { path: 'multi/data.csv', body: 'a,b\n1,2' });
      expect(Object.keys(r.published!.version.files).sort()).to.deep.equal(['data.csv', 'index.html']);
      expect(r.published?.dashboard.name).to.equal('Multi');
      expect(r.published?.dashboard.tags).to.deep.equal(['x']);
    });

    it('decodes base64 bodies and refuses invalid base64 or oversize bodies', async () => {
      const r = await publish(ada, { path: 'img/logo.png', body: Buffer.from([137, 80, 78, 71]).toString('base64'), encoding: 'base64' });
      expect(r.bytes).to.equal(4);
      expect((await refusal(publish(ada, { path: 'img/x.png', body: '***', encoding: 'base64' }))).message).to.equal('body is not valid base64');
      const big = await refusal(publish(ada, { path: 'big', body: 'x'.repeat(5_242_881) }));
      expect(big.message.startsWith('413 payload too large: ')).to.equal(true);
      expect(big.code).to.equal('payload_too_large');
    });

    it('a dry run validates and writes nothing', async () => {
      const r = await publish(ada, { path: 'dry', body: 'x', dryRun: true });
      expect(r.dryRun).to.equal(true);
      expect(r.published).to.equal(null);
      const missing = await refusal(harness.container.get(GetDashboard).execute(ada, { slug: 'dry' }));
      expect(missing.message).to.equal('No dashboard named "dry" in your account');
      expect((await refusal(publish(ada, { path: 'dry', body: 'x', tags: [1] as unknown as string[], dryRun: true }))).message).to.equal('tags[0] must be a string (got number)');
    });

    it('workspace dashboards default to private and the grant lock scopes them', async () => {
      const r = await publish(adaInAcme, { path: 'team', body: 'x' });
      expect(r.published?.dashboard.visibility).to.equal('private');
      const workspace = workspaceOf(r.target);
      expect(workspace).to.match(/^acme/);
      const personal = await refusal(publish(ada, { path: 'team', body: 'x', workspace }));
      expect(personal.message.startsWith('This connection is authorized for your personal account only')).to.equal(true);
      const other = await refusal(publish(adaInAcme, { path: 'team', body: 'x', workspace: 'elsewhere' }));
      expect(other.message.startsWith(`This connection is authorized for the "${workspace}" workspace and cannot act on "elsewhere".`)).to.equal(true);
      expect((await refusal(publish(bob, { path: 'team', body: 'x', workspace }))).message).to.equal(
        `not a member of workspace "${workspace}"`,
      );
      expect((await refusal(publish(bob, { path: 'team', body: 'x', workspace: 'no-such-ws' }))).message).to.equal('workspace "no-such-ws" not found');
    });

    it('tenants never see each other: bob cannot read ada\'s dashboard', async () => {
      const err = await refusal(harness.container.get(GetDashboard).execute(bob, { slug: 'sales' }));
      expect(err.message).to.equal('No dashboard named "sales" in your account');
    });

    it('updates metadata without a new version, with the metadata semantics', async () => {
      const before = await publish(ada, { path: 'meta', body: 'x', name: 'Meta', tags: ['a', 'b'], chart: 'bar' });
      const update = harness.container.get(UpdateDashboard);
      const r = await update.execute(ada, { slug: 'meta', tags: [], name: null, visibility: 'private' });
      expect(r.dashboard.tags).to.deep.equal([]);
      expect(r.dashboard.name).to.equal('Meta');
      expect(r.dashboard.chart).to.equal('bar');
      expect(r.dashboard.visibility).to.equal('private');
      expect(r.dashboard.currentVersionId).to.equal(versionId(before));
      expect(r.changed).to.have.members(['tags', 'visibility']);
      expect((await refusal(update.execute(ada, { slug: 'meta', name: ' ' }))).message).to.equal('name must be a non-empty string');
      expect((await refusal(update.execute(ada, { slug: 'meta', chart: '' }))).message).to.equal('chart must be a non-empty string');
      expect((await refusal(update.execute(ada, { slug: 'meta', visibility: 'team' }))).message).to.equal('visibility must be "public" or "private"');
      expect((await refusal(update.execute(ada, { slug: 'meta', connection: 7 }))).message).to.equal('connection must be a string');
    });

    it('renames, leaving an alias; chains collapse and renaming back reclaims the alias', async () => {
      await publish(ada, { path: 'old-name', body: 'x' });
      const rename = harness.container.get(RenameDashboard);
      const r = await rename.execute(ada, { slug: 'old-name', newSlug: 'mid-name' });
      expect(r.dashboard.slug).to.equal('mid-name');
      expect(r.oldSlug).to.equal('old-name');
      await rename.execute(ada, { slug: 'mid-name', newSlug: 'new-name' });
      const store = harness.container.get<DashboardStore>(DashboardStore);
      const viaOld = await harness.container.get(GetDashboard).execute(ada, { slug: 'old-name' });
      expect(viaOld.dashboard.slug).to.equal('new-name');
      expect(viaOld.aliasOf).to.equal('new-name');
      const conflict = await refusal(publish(ada, { path: 'old-name', body: 'y' }));
      expect(conflict.code).to.equal('conflict');
      await rename.execute(ada, { slug: 'new-name', newSlug: 'old-name' });
      const owner = { kind: 'user' as const, id: ada.userId };
      expect(await store.findAlias(owner, 'old-name')).to.equal(null);
      const reclaimed = await store.findDashboard(owner, 'old-name');
      expect((await store.findAlias(owner, 'new-name'))?.dashboardId).to.equal(reclaimed?.id);
      expect((await store.findAlias(owner, 'mid-name'))?.dashboardId).to.equal(reclaimed?.id);
      await publish(ada, { path: 'taken', body: 'x' });
      expect((await refusal(rename.execute(ada, { slug: 'old-name', newSlug: 'taken' }))).code).to.equal('conflict');
    });

    it('deletes a dashboard with its versions and aliases', async () => {
      await publish(ada, { path: 'doomed', body: 'x' });
      await harness.container.get(RenameDashboard).execute(ada, { slug: 'doomed', newSlug: 'doomed-2' });
      const r = await harness.container.get(DeleteDashboard).execute(ada, { slug: 'doomed-2' });
      expect(r.slug).to.equal('doomed-2');
      expect(r.versionsDeleted).to.equal(1);
      const store = harness.container.get<DashboardStore>(DashboardStore);
      expect(await store.findAlias({ kind: 'user', id: ada.userId }, 'doomed')).to.equal(null);
      await publish(ada, { path: 'doomed', body: 'fresh' });
    });

    it('lists with a keyset cursor, tag and slug filters', async () => {
      for (const s of ['l-a', 'l-b', 'l-c']) await publish(bob, { path: s, body: s, tags: s === 'l-b' ? ['pick'] : [] });
      const list = harness.container.get(ListDashboards);
      const first = await list.execute(bob, { limit: 2 });
      expect(first.dashboards.map((d) => d.dashboard.slug)).to.deep.equal(['l-a', 'l-b']);
      const second = await list.execute(bob, { limit: 2, cursor: first.nextCursor });
      expect(second.dashboards.map((d) => d.dashboard.slug)).to.deep.equal(['l-c']);
      expect(second.nextCursor).to.equal(null);
      expect((await list.execute(bob, { tag: 'pick' })).dashboards.map((d) => d.dashboard.slug)).to.deep.equal(['l-b']);
      expect((await refusal(list.execute(bob, { slug: 'nope' }))).message).to.equal('No dashboard named "nope" in your account');
      expect((await refusal(list.execute(bob, { cursor: 'garbage!' }))).code).to.equal('invalid_argument');
    });

    it('a fresh dashboard has no snapshots; versions can be previewed and restored', async () => {
      const v1 = await publish(ada, { path: 'ver', body: 'one' });
      expect((await versions().list(ada, { slug: 'ver' })).versions.length).to.equal(0);
      const v2 = await publish(ada, { path: 'ver', body: 'two' });
      const listed = await versions().list(ada, { slug: 'ver' });
      expect(listed.versions.map((v) => v.id)).to.deep.equal([versionId(v1)]);
      expect(listed.dashboard.currentVersionId).to.equal(versionId(v2));
      const preview = await versions().get(ada, { slug: 'ver', versionId: versionId(v1) });
      expect(preview.body?.content).to.equal('one');
      expect(preview.version.id).to.equal(versionId(v1));
      const restored = await versions().restore(ada, { slug: 'ver', versionId: versionId(v1) });
      expect(restored.restoredFrom).to.equal(versionId(v1));
      expect(restored.dashboard.currentVersionId).to.equal(restored.current.id);
      const current = await harness.container.get(GetDashboard).execute(ada, { slug: 'ver', includeBody: true });
      expect(current.body?.content).to.equal('one');
      expect(current.dashboard.currentVersionId).to.equal(restored.current.id);
      expect((await versions().list(ada, { slug: 'ver' })).versions.map((v) => v.id)).to.deep.equal([versionId(v2), versionId(v1)]);
      expect((await refusal(versions().get(ada, { slug: 'ver', versionId: 'nope' }))).message).to.equal('version_id must be a valid uuid');
    });

    it('keeps the 20 newest automatic snapshots plus named ones; a 31st name is refused', async () => {
      const ids: string[] = [];
      for (let i = 1; i <= 25; i++) {
        const r = await publish(ada, { path: 'retain', body: `v${i}` });
        ids.push(versionId(r));
        if (i === 3) {
          await versions().name(ada, { slug: 'retain', versionId: ids[0], name: 'first' });
          await versions().name(ada, { slug: 'retain', versionId: ids[1], name: 'second' });
        }
      }
      const listed = await versions().list(ada, { slug: 'retain' });
      const expected = [...ids.slice(4, 24).reverse(), ids[1], ids[0]];
      expect(listed.versions.map((v) => v.id)).to.deep.equal(expected);
      expect(listed.versions.length).to.equal(22);

      // Name each new snapshot as it appears until 30 are named.
      for (let i = 26; i <= 53; i++) {
        await publish(ada, { path: 'retain', body: `v${i}` });
        const newest = (await versions().list(ada, { slug: 'retain' })).versions[0];
        await versions().name(ada, { slug: 'retain', versionId: newest.id, name: `keep ${newest.seq}` });
      }
      const named = (await versions().list(ada, { slug: 'retain' })).versions.filter((v) => v.name !== null);
      expect(named.length).to.equal(30);
      const unnamed = (await versions().list(ada, { slug: 'retain' })).versions.find((v) => v.name === null)!;
      const err = await refusal(versions().name(ada, { slug: 'retain', versionId: unnamed.id, name: 'one too many' }));
      expect(err.code).to.equal('limit_reached');
      expect(err.message).to.contain('already has 30 named versions');
      expect((await versions().list(ada, { slug: 'retain' })).versions.length).to.be.at.most(50);
    });

    it('50 concurrent publishes to one slug all land, in one consistent order', async () => {
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => publish(bob, { path: 'race', body: `body ${i}` })));
      expect(results.every((r) => r.published?.version.id)).to.equal(true);
      expect(results.filter((r) => r.created).length).to.equal(1);
      const store = harness.container.get<DashboardStore>(DashboardStore);
      const dashboard = await store.findDashboard({ kind: 'user', id: bob.userId }, 'race');
      const all = await store.listVersions(dashboard!.id);
      expect(all.map((v) => v.seq)).to.deep.equal(Array.from({ length: 21 }, (_, i) => 50 - i));
      const bySeq = new Map(all.map((v) => [v.seq, v.id]));
      expect(dashboard!.currentVersionId).to.equal(bySeq.get(50));
      // Every publish made its own version: the kept ones are exactly the last 21 the lock granted.
      const ids = new Set(results.map((r) => r.published?.version.id));
      expect(ids.size).to.equal(50);
      for (const v of all) expect(ids.has(v.id)).to.equal(true);
    });
  });
}
