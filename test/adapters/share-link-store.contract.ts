import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { DashboardStore } from '../../application/ports/dashboard-store.js';
import type { NewShareLink, ShareLinkStore } from '../../application/ports/share-link-store.js';
import type { OwnerRef } from '../../domain/scope.js';
import { aDashboard } from '../support/mothers.js';

export interface ShareLinkStoreFixture {
  links: ShareLinkStore;
  dashboards: DashboardStore;
}

/** What every ShareLinkStore adapter must do: the same suite runs against memory and PostgreSQL. */
export function describeShareLinkStoreContract(name: string, make: () => Promise<ShareLinkStoreFixture>) {
  describe(`adapter contract: ShareLinkStore (${name})`, () => {
    let links: ShareLinkStore;
    let dashboards: DashboardStore;
    const now = new Date('2026-03-01T12:00:00.000Z');
    const later = (ms: number) => new Date(now.getTime() + ms);
    before(async () => {
      ({ links, dashboards } = await make());
    });

    async function aSharedDashboard(owner: OwnerRef = { kind: 'user', id: randomUUID() }) {
      const record = aDashboard(owner);
      await dashboards.transaction(owner, (tx) => tx.insertDashboard(record));
      return record;
    }

    function aLink(dashboard: { id: string; owner: OwnerRef }, over: Partial<NewShareLink> = {}): NewShareLink {
      return {
        id: randomUUID(),
        dashboardId: dashboard.id,
        owner: dashboard.owner,
        tokenHash: randomUUID().replaceAll('-', ''),
        label: null,
        passwordHash: null,
        expiresAt: null,
        paused: false,
        pinnedVersionId: null,
        createdBy: null,
        createdAt: now,
        ...over,
      };
    }

    it('keeps a link, finds it by id and by token hash, and lists the owner’s newest first', async () => {
      const dashboard = await aSharedDashboard();
      const other = await aSharedDashboard(dashboard.owner);
      const first = aLink(dashboard, { label: 'board', passwordHash: 'scrypt$x', expiresAt: later(60_000), pinnedVersionId: randomUUID(), createdBy: 'u1' });
      const second = aLink(other, { createdAt: later(1_000) });
      await links.insert(first);
      await links.insert(second);
      const { owner: _o, tokenHash, ...shown } = first;
      expect(await links.findByTokenHash(tokenHash)).to.deep.equal({ ...shown, views: 0, lastUsedAt: null });
      expect(await links.findById(first.id)).to.deep.equal({ ...shown, views: 0, lastUsedAt: null, owner: dashboard.owner });
      expect((await links.list(dashboard.owner)).map((l) => l.id)).to.deep.equal([second.id, first.id]);
      expect((await links.list(dashboard.owner, dashboard.id)).map((l) => l.id)).to.deep.equal([first.id]);
      expect(await links.list({ kind: 'workspace', id: dashboard.owner.id })).to.deep.equal([]);
      expect(await links.countForDashboard(dashboard.id)).to.equal(1);
      expect(await links.findByTokenHash('nope')).to.equal(null);
      expect(await links.findById(randomUUID())).to.equal(null);
    });

    it('pauses and resumes; revoking deletes the link and its sessions', async () => {
      const dashboard = await aSharedDashboard();
      const link = aLink(dashboard);
      await links.insert(link);
      await links.saveSession(`s-${link.id}`, link.id, later(60_000));
      await links.setPaused(link.id, true);
      expect((await links.findSession(`s-${link.id}`, now))?.link.paused).to.equal(true);
      await links.setPaused(link.id, false);
      expect((await links.findById(link.id))?.paused).to.equal(false);
      await links.delete(link.id);
      expect(await links.findById(link.id)).to.equal(null);
      expect(await links.findSession(`s-${link.id}`, now)).to.equal(null);
    });

    it('finds sessions with their link until they expire, and purges expired ones', async () => {
      const dashboard = await aSharedDashboard();
      const link = aLink(dashboard, { label: 'x' });
      await links.insert(link);
      await links.saveSession(`a-${link.id}`, link.id, later(1_000));
      await links.saveSession(`b-${link.id}`, link.id, later(10_000));
      const found = await links.findSession(`a-${link.id}`, now);
      expect(found?.expiresAt).to.deep.equal(later(1_000));
      expect(found?.link.id).to.equal(link.id);
      expect(found?.link.label).to.equal('x');
      expect(await links.findSession(`a-${link.id}`, later(1_000))).to.equal(null);
      await links.purgeExpiredSessions(later(5_000));
      expect(await links.findSession(`a-${link.id}`, now)).to.equal(null);
      expect(await links.findSession(`b-${link.id}`, now)).to.not.equal(null);
    });

    it('adds batched views with the latest use, skipping links revoked meanwhile', async () => {
      const dashboard = await aSharedDashboard();
      const link = aLink(dashboard);
      await links.insert(link);
      await links.addViews([{ linkId: link.id, views: 3, lastUsedAt: later(2_000) }, { linkId: randomUUID(), views: 1, lastUsedAt: now }]);
      await links.addViews([{ linkId: link.id, views: 2, lastUsedAt: later(1_000) }]);
      await links.addViews([]);
      const after = await links.findById(link.id);
      expect(after?.views).to.equal(5);
      expect(after?.lastUsedAt).to.deep.equal(later(2_000));
    });
  });
}
