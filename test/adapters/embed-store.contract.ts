import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { DashboardStore } from '../../application/ports/dashboard-store.js';
import type { EmbedStore } from '../../application/ports/embed-store.js';
import type { OwnerRef } from '../../domain/scope.js';
import { aDashboard } from '../support/mothers.js';

export interface EmbedStoreFixture {
  embeds: EmbedStore;
  dashboards: DashboardStore;
}

/** What every EmbedStore adapter must do: the same suite runs against memory and PostgreSQL. */
export function describeEmbedStoreContract(name: string, make: () => Promise<EmbedStoreFixture>) {
  describe(`adapter contract: EmbedStore (${name})`, () => {
    let embeds: EmbedStore;
    let dashboards: DashboardStore;
    const now = new Date('2026-11-27T08:00:00.000Z');
    before(async () => {
      ({ embeds, dashboards } = await make());
    });

    async function aStoredDashboard(owner: OwnerRef = { kind: 'user', id: randomUUID() }) {
      const record = aDashboard(owner);
      await dashboards.transaction(owner, (tx) => tx.insertDashboard(record));
      return record;
    }

    it('answers "off, no origins" for a dashboard never configured', async () => {
      const dashboard = await aStoredDashboard();
      expect(await embeds.settings(dashboard.id)).to.deep.equal({ enabled: false, origins: [] });
    });

    it('keeps and replaces a dashboard’s switch and origins, in order, per dashboard', async () => {
      const dashboard = await aStoredDashboard();
      const other = await aStoredDashboard(dashboard.owner);
      await embeds.saveSettings(dashboard.id, { enabled: true, origins: ['https://b.example', 'https://a.example'] }, now);
      expect(await embeds.settings(dashboard.id)).to.deep.equal({ enabled: true, origins: ['https://b.example', 'https://a.example'] });
      await embeds.saveSettings(dashboard.id, { enabled: false, origins: ['https://a.example'] }, now);
      expect(await embeds.settings(dashboard.id)).to.deep.equal({ enabled: false, origins: ['https://a.example'] });
      expect(await embeds.settings(other.id)).to.deep.equal({ enabled: false, origins: [] });
    });

    it('keeps one secret per owner, replaced on rotation, and tells a user from a workspace with the same id', async () => {
      const id = randomUUID();
      const user: OwnerRef = { kind: 'user', id };
      const workspace: OwnerRef = { kind: 'workspace', id };
      expect(await embeds.secret(user)).to.equal(null);
      await embeds.saveSecret(user, { secret: 'first-secret', createdAt: now });
      expect(await embeds.secret(user)).to.deep.equal({ secret: 'first-secret', createdAt: now });
      expect(await embeds.secret(workspace)).to.equal(null);
      const later = new Date(now.getTime() + 60_000);
      await embeds.saveSecret(user, { secret: 'second-secret', createdAt: later });
      expect(await embeds.secret(user)).to.deep.equal({ secret: 'second-secret', createdAt: later });
    });
  });
}
