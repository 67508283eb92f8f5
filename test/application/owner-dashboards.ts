import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { Container } from 'inversify';
import { OwnerDashboards, OWNER_PAGE_SIZE } from '../../application/dashboards/owner-dashboards.js';
import { PublishDashboard, type PublishCommand } from '../../application/dashboards/publish-dashboard.js';
import { AccountStore } from '../../application/ports/account-store.js';
import { DashboardStore } from '../../application/ports/dashboard-store.js';
import { RateLimiter } from '../../application/ports/rate-limiter.js';
import { RefreshStateStore } from '../../application/ports/refresh-state-store.js';
import type { Principal } from '../../application/ports/token-verifier.js';
import { ViewCounter } from '../../application/ports/view-counter.js';
import { refusal } from '../support/refusal.js';
import { aPrincipal, aUser, aWorkspace, workspaceLock } from '../support/mothers.js';

export interface OwnerHarness {
  container: Container;
  close(): Promise<void>;
}

const SPEC = {
  title: 'Counts',
  queries: { count: { sql: 'SELECT count(*)::int AS n FROM dashboards' } },
  panels: [{ id: 'n', type: 'stat', title: 'Dashboards', query: 'count', value: 'n' }],
};

/** The web app's dashboards use case, run once per storage (memory, PostgreSQL). */
export function describeOwnerDashboards(storage: string, makeHarness: () => Promise<OwnerHarness>) {
  describe(`application: owner dashboards pages (${storage})`, function () {
    this.timeout(60_000);
    let harness: OwnerHarness;
    let pages: OwnerDashboards;
    let ada: { id: string; handle: string };
    let bob: { id: string; handle: string };
    let acme: { id: string; slug: string };
    let asAda: Principal;
    let asAcme: Principal;
    const suffix = Date.now().toString(36);

    const publish = (p: Principal, command: PublishCommand) => harness.container.get(PublishDashboard).execute(p, command);

    before(async () => {
      harness = await makeHarness();
      pages = harness.container.get(OwnerDashboards);
      const accounts = harness.container.get<AccountStore>(AccountStore);
      ada = await aUser(accounts, { handle: `ada${suffix}` });
      bob = await aUser(accounts, { handle: `bob${suffix}` });
      acme = await aWorkspace(accounts, { slug: `acme${suffix}`, name: 'Acme' });
      await accounts.addMember(acme.id, ada.id, 'member');
      asAda = aPrincipal(ada.id, { grantId: 'g1' });
      asAcme = aPrincipal(ada.id, { grantId: 'g2', lock: workspaceLock(acme) });
      for (let i = 0; i < OWNER_PAGE_SIZE + 5; i++) {
        await publish(asAda, { path: `d${String(i).padStart(3, '0')}`, body: `<p>${i}</p>`, name: i === 7 ? 'Quarterly Revenue' : `Dash ${i}`, tags: i % 2 ? ['odd'] : [] });
      }
      await publish(asAda, { path: 'metrics', spec: SPEC, visibility: 'private', tags: ['ops'] });
      await publish(asAcme, { path: 'team', body: '<p>team</p>' });
    });
    after(async () => harness.close());

    it('offers the personal account first, then each workspace', async () => {
      expect(await pages.owners(ada.id)).to.deep.equal([
        { name: ada.handle, label: 'Personal account', kind: 'personal' },
        { name: acme.slug, label: 'Acme', kind: 'workspace' },
      ]);
    });

    it('pages along the list_dashboards keyset cursor, in slug order', async () => {
      const first = await pages.list(ada.id, ada.handle, {});
      expect(first.rows).to.have.length(OWNER_PAGE_SIZE);
      expect(first.rows[0]!.slug).to.equal('d000');
      expect(first.nextCursor).to.be.a('string');
      const second = await pages.list(ada.id, ada.handle, { cursor: first.nextCursor! });
      expect(second.rows.map((r) => r.slug)).to.deep.equal(['d050', 'd051', 'd052', 'd053', 'd054', 'metrics']);
      expect(second.nextCursor).to.equal(null);
      expect(first.tags).to.deep.equal(['odd', 'ops']);
      expect((await refusal(pages.list(ada.id, ada.handle, { cursor: 'nonsense' }))).code).to.equal('invalid_argument');
    });

    it('filters by name or slug, tag, visibility and kind', async () => {
      const slugs = async (filters: Parameters<OwnerDashboards['list']>[2]) => (await pages.list(ada.id, ada.handle, filters)).rows.map((r) => r.slug);
      expect(await slugs({ search: 'REVENUE' })).to.deep.equal(['d007']);
      expect(await slugs({ search: 'd05' })).to.deep.equal(['d050', 'd051', 'd052', 'd053', 'd054']);
      expect((await slugs({ tag: 'odd' })).length).to.equal(27);
      expect(await slugs({ visibility: 'private' })).to.deep.equal(['metrics']);
      expect(await slugs({ kind: 'refreshable' })).to.deep.equal(['metrics']);
      expect(await slugs({ kind: 'static', search: 'metrics' })).to.deep.equal([]);
    });

    it('shows views over the last 30 days and the last refresh outcome', async () => {
      const store = harness.container.get<DashboardStore>(DashboardStore);
      const metrics = (await store.findDashboard({ kind: 'user', id: ada.id }, 'metrics'))!;
      const today = new Date().toISOString().slice(0, 10);
      await harness.container.get<ViewCounter>(ViewCounter).add([
        { dashboardId: metrics.id, day: today, views: 3 },
        { dashboardId: metrics.id, day: '2001-01-01', views: 100 },
      ]);
      const state = harness.container.get<RefreshStateStore>(RefreshStateStore);
      await state.recordRun({ id: randomUUID(), dashboardId: metrics.id, trigger: 'manual', startedAt: new Date(Date.now() - 60_000), durationMs: 5, outcome: 'success', rows: 1, error: null });
      await state.recordRun({ id: randomUUID(), dashboardId: metrics.id, trigger: 'schedule', startedAt: new Date(), durationMs: 9, outcome: 'failure', rows: 0, error: 'boom' });
      const [row] = (await pages.list(ada.id, ada.handle, { search: 'metrics' })).rows;
      expect(row).to.deep.include({ slug: 'metrics', kind: 'refreshable', visibility: 'private', views: 3 });
      expect(row!.lastRun?.outcome).to.equal('failure');

      const detail = await pages.detail(ada.id, ada.handle, 'metrics');
      expect(detail.runs.map((r) => r.error)).to.deep.equal(['boom', null]);
      expect(detail.dailyViews).to.have.length(30);
      expect(detail.dailyViews[29]).to.deep.equal({ day: today, views: 3 });
      expect(detail.refreshRefusal).to.equal(null);
      expect(detail.current.id).to.equal(detail.dashboard.currentVersionId);
      expect(detail.publishedAt).to.deep.equal(detail.current.createdAt);
    });

    it('acts through the tools: rename leaves an alias, the old slug still finds the dashboard', async () => {
      await pages.rename(ada.id, ada.handle, 'd001', 'renamed-one');
      const detail = await pages.detail(ada.id, ada.handle, 'd001');
      expect(detail.dashboard.slug).to.equal('renamed-one');
      expect(detail.aliases.map((a) => a.slug)).to.deep.equal(['d001']);
      const taken = await refusal(pages.rename(ada.id, ada.handle, 'd002', 'renamed-one'));
      expect(taken.message).to.equal('slug "renamed-one" is already used by another dashboard');
      const bad = await refusal(pages.update(ada.id, ada.handle, 'd002', { name: '  ', tags: [], visibility: 'public' }));
      expect(bad.message).to.equal('name must be a non-empty string');
      expect((await refusal(pages.update(ada.id, ada.handle, 'd002', { name: 'x', tags: [], visibility: 'secret' }))).message).to.equal('visibility must be "public" or "private"');
    });

    it('refuses "Refresh now" on a workspace with the tool\'s text, and past the trigger_refresh rate limit', async () => {
      const team = await pages.detail(ada.id, acme.slug, 'team');
      expect(team.refreshRefusal).to.equal("Triggering a refresh on demand isn't available for workspace dashboards yet - it works on personal dashboards only.");
      const limiter = harness.container.get<RateLimiter>(RateLimiter);
      for (let i = 0; i < 20; i++) await limiter.consume('trigger_refresh', ada.id, 20, 60);
      const limited = await refusal(pages.refreshNow(ada.id, ada.handle, 'metrics'));
      expect(limited.message).to.equal('Rate limit exceeded for trigger_refresh: too many requests. Wait about 60 seconds and try again.');
    });

    it('reaches nothing of another person or of a workspace one is not in', async () => {
      const attempts = [
        () => pages.list(bob.id, ada.handle, {}),
        () => pages.list(bob.id, acme.slug, {}),
        () => pages.detail(bob.id, ada.handle, 'metrics'),
        () => pages.detail(bob.id, acme.slug, 'team'),
        () => pages.remove(bob.id, acme.slug, 'team'),
        () => pages.list(bob.id, 'Not A Name', {}),
      ];
      for (const attempt of attempts) {
        const refused = await refusal(attempt());
        expect(refused.code).to.equal('not_found');
        expect(refused.message).to.equal('No such owner');
      }
      expect((await refusal(pages.detail(ada.id, ada.handle, 'missing'))).code).to.equal('not_found');
      expect((await pages.list(ada.id, acme.slug, {})).rows.map((r) => r.slug)).to.deep.equal(['team']);
    });
  });
}
