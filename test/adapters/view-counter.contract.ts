import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { ViewCounter } from '../../application/ports/view-counter.js';

/** What every ViewCounter adapter must do: the same suite runs against memory and PostgreSQL. */
export function describeViewCounterContract(name: string, make: () => Promise<ViewCounter>) {
  describe(`adapter contract: ViewCounter (${name})`, () => {
    let counter: ViewCounter;
    before(async () => {
      counter = await make();
    });

    it('adds to existing counts per dashboard and day', async () => {
      const [a, b] = [randomUUID(), randomUUID()];
      await counter.add([
        { dashboardId: a, day: '2026-03-01', views: 3 },
        { dashboardId: b, day: '2026-03-01', views: 1 },
      ]);
      await counter.add([
        { dashboardId: a, day: '2026-03-01', views: 2 },
        { dashboardId: a, day: '2026-03-02', views: 7 },
      ]);
      expect(await counter.daily([a, b])).to.deep.equal(
        [
          { dashboardId: a, day: '2026-03-01', views: 5 },
          { dashboardId: b, day: '2026-03-01', views: 1 },
          { dashboardId: a, day: '2026-03-02', views: 7 },
        ].sort((x, y) => (x.day === y.day ? x.dashboardId.localeCompare(y.dashboardId) : x.day < y.day ? -1 : 1)),
      );
      expect(await counter.daily([a], '2026-03-02')).to.deep.equal([{ dashboardId: a, day: '2026-03-02', views: 7 }]);
      expect(await counter.daily([randomUUID()])).to.deep.equal([]);
    });

    it('merges repeated keys inside one batch and survives concurrent batches', async () => {
      const id = randomUUID();
      await Promise.all(
        Array.from({ length: 8 }, () =>
          counter.add([
            { dashboardId: id, day: '2026-04-01', views: 1 },
            { dashboardId: id, day: '2026-04-01', views: 1 },
          ]),
        ),
      );
      expect(await counter.daily([id])).to.deep.equal([{ dashboardId: id, day: '2026-04-01', views: 16 }]);
    });
  });
}
