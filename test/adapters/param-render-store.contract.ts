import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { DashboardStore } from '../../application/ports/dashboard-store.js';
import type { ParamRenderStore } from '../../application/ports/param-render-store.js';
import type { OwnerRef } from '../../domain/scope.js';
import { aDashboard } from '../support/mothers.js';

export interface ParamRenderStoreFixture {
  renders: ParamRenderStore;
  dashboards: DashboardStore;
}

const render = (n: number) => ({ html: `<p>${n}</p>`, sha256: `sha-${n}` });

/** What every ParamRenderStore adapter must do: the same suite runs against memory and PostgreSQL. */
export function describeParamRenderStoreContract(name: string, make: () => Promise<ParamRenderStoreFixture>) {
  describe(`adapter contract: ParamRenderStore (${name})`, () => {
    let renders: ParamRenderStore;
    let dashboards: DashboardStore;
    const at = (minute: number) => new Date(Date.UTC(2026, 10, 27, 8, minute));
    before(async () => {
      ({ renders, dashboards } = await make());
    });

    async function aStoredDashboard(owner: OwnerRef = { kind: 'user', id: randomUUID() }) {
      const record = aDashboard(owner);
      await dashboards.transaction(owner, (tx) => tx.insertDashboard(record));
      return record;
    }

    it('finds a render by dashboard, version and values, and nothing else', async () => {
      const dashboard = await aStoredDashboard();
      const version = randomUUID();
      await renders.put(dashboard.id, version, 'k1', render(1), at(0), 10);
      expect(await renders.find(dashboard.id, version, 'k1')).to.deep.equal(render(1));
      expect(await renders.find(dashboard.id, version, 'k2')).to.equal(null);
      expect(await renders.find(dashboard.id, randomUUID(), 'k1')).to.equal(null);
      expect(await renders.find((await aStoredDashboard()).id, version, 'k1')).to.equal(null);
    });

    it('keeps only the newest renders of a dashboard, and none of its other versions', async () => {
      const dashboard = await aStoredDashboard();
      const [v1, v2] = [randomUUID(), randomUUID()];
      for (let i = 0; i < 5; i++) await renders.put(dashboard.id, v1, `k${i}`, render(i), at(i), 3);
      const kept = await Promise.all([0, 1, 2, 3, 4].map((i) => renders.find(dashboard.id, v1, `k${i}`)));
      expect(kept.map((r) => r?.sha256 ?? null)).to.deep.equal([null, null, 'sha-2', 'sha-3', 'sha-4']);
      await renders.put(dashboard.id, v2, 'k4', render(9), at(9), 3);
      expect(await renders.find(dashboard.id, v1, 'k4')).to.equal(null);
      expect(await renders.find(dashboard.id, v2, 'k4')).to.deep.equal(render(9));
    });

    it('counts a budget per dashboard and minute window, exactly, however many ask at once', async () => {
      const dashboard = await aStoredDashboard();
      const other = await aStoredDashboard();
      const taken = await Promise.all(Array.from({ length: 50 }, () => renders.takeBudget(dashboard.id, at(0), 7)));
      expect(taken.filter(Boolean)).to.have.length(7);
      expect(await renders.takeBudget(other.id, at(0), 7)).to.equal(true);
      expect(await renders.takeBudget(dashboard.id, at(1), 7)).to.equal(true);
      expect(await renders.takeBudget(dashboard.id, at(1), 0)).to.equal(false);
    });
  });
}
