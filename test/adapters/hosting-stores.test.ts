import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { MemoryViewCounter } from '../../adapters/memory/memory-view-counter.js';
import { MemoryViewerTickets } from '../../adapters/memory/memory-viewer-tickets.js';
import { openDataSource } from '../../adapters/typeorm/data-source.js';
import { TypeormViewCounter } from '../../adapters/typeorm/typeorm-view-counter.js';
import { TypeormViewerTickets } from '../../adapters/typeorm/typeorm-viewer-tickets.js';
import type { ViewCounter } from '../../application/ports/view-counter.js';
import type { ViewerTickets } from '../../application/ports/viewer-tickets.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

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

export function describeViewerTicketsContract(name: string, make: () => Promise<ViewerTickets>) {
  describe(`adapter contract: ViewerTickets (${name})`, () => {
    let tickets: ViewerTickets;
    const now = new Date('2026-03-01T12:00:00Z');
    const later = (ms: number) => new Date(now.getTime() + ms);
    const userId = randomUUID();
    before(async () => {
      tickets = await make();
    });

    it('hands a ticket out once, only before it expires', async () => {
      const ticket = { userId, subdomain: 'ada', stateHash: 'ab'.repeat(32), expiresAt: later(60_000) };
      await tickets.saveTicket('h1', ticket);
      const taken = await Promise.all([tickets.takeTicket('h1', now), tickets.takeTicket('h1', now)]);
      expect(taken.filter((t) => t !== null)).to.have.length(1);
      expect(taken.find((t) => t !== null)).to.deep.equal(ticket);
      await tickets.saveTicket('h2', ticket);
      expect(await tickets.takeTicket('h2', later(60_000))).to.equal(null);
      expect(await tickets.takeTicket('h2', now)).to.equal(null);
    });

    it('finds sessions until they expire or are deleted, and purges expired ones', async () => {
      const session = { userId, subdomain: 'acme', expiresAt: later(1_000) };
      await tickets.saveSession('s1', session);
      await tickets.saveSession('s2', { ...session, expiresAt: later(10_000) });
      expect(await tickets.findSession('s1', now)).to.deep.equal(session);
      expect(await tickets.findSession('s1', later(1_000))).to.equal(null);
      expect(await tickets.findSession('nope', now)).to.equal(null);
      await tickets.purgeExpired(later(5_000));
      expect(await tickets.findSession('s1', now)).to.equal(null);
      expect(await tickets.findSession('s2', now)).to.not.equal(null);
      await tickets.deleteSession('s2');
      expect(await tickets.findSession('s2', now)).to.equal(null);
    });
  });
}

describeViewCounterContract('memory', async () => new MemoryViewCounter());
describeViewerTicketsContract('memory', async () => new MemoryViewerTickets());

describe('adapters: hosting stores on PostgreSQL', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let dataSource: DataSource;
  before(async () => {
    database = await createTestDatabase();
    dataSource = await openDataSource(database.url);
  });
  after(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  describeViewCounterContract('TypeORM', async () => new TypeormViewCounter(dataSource));
  describeViewerTicketsContract('TypeORM', async () => new TypeormViewerTickets(dataSource));
});
