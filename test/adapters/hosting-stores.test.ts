import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { MemoryDashboardStore } from '../../adapters/memory/memory-dashboard-store.js';
import { MemoryShareLinkStore } from '../../adapters/memory/memory-share-link-store.js';
import { PostgresDashboardStore } from '../../adapters/postgres/postgres-dashboard-store.js';
import { PostgresShareLinkStore } from '../../adapters/postgres/postgres-share-link-store.js';
import { aDashboard } from '../support/mothers.js';
import { describeShareLinkStoreContract } from './share-link-store.contract.js';
import { MemoryViewCounter } from '../../adapters/memory/memory-view-counter.js';
import { MemoryViewerTickets } from '../../adapters/memory/memory-viewer-tickets.js';
import { TypeormViewCounter } from '../../adapters/postgres/typeorm-view-counter.js';
import { TypeormViewerTickets } from '../../adapters/postgres/typeorm-viewer-tickets.js';
import { openTestDatabase, type OpenTestDatabase } from '../support/database.js';
import { describeViewCounterContract } from './view-counter.contract.js';
import { describeViewerTicketsContract } from './viewer-tickets.contract.js';

describeViewCounterContract('memory', async () => new MemoryViewCounter());
describeViewerTicketsContract('memory', async () => new MemoryViewerTickets());

describe('adapters: hosting stores on PostgreSQL', function () {
  this.timeout(60_000);
  let database: OpenTestDatabase;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database?.close());

  describeViewCounterContract('TypeORM', async () => new TypeormViewCounter(database.dataSource));
  describeViewerTicketsContract('TypeORM', async () => new TypeormViewerTickets(database.dataSource));
});

describeShareLinkStoreContract('memory', async () => ({ links: new MemoryShareLinkStore(), dashboards: new MemoryDashboardStore() }));

describe('adapters: share links on PostgreSQL', function () {
  this.timeout(60_000);
  let database: OpenTestDatabase;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database?.close());

  describeShareLinkStoreContract('PostgreSQL', async () => ({
    links: new PostgresShareLinkStore(database.dataSource),
    dashboards: new PostgresDashboardStore(database.dataSource),
  }));

  it('deletes a dashboard’s links (and so their sessions) with the dashboard', async () => {
    const dashboards = new PostgresDashboardStore(database.dataSource);
    const links = new PostgresShareLinkStore(database.dataSource);
    const owner = { kind: 'user' as const, id: randomUUID() };
    const record = aDashboard(owner);
    await dashboards.transaction(owner, (tx) => tx.insertDashboard(record));
    const id = randomUUID();
    await links.insert({ id, dashboardId: record.id, owner, tokenHash: id, label: null, passwordHash: null, expiresAt: null, paused: false, pinnedVersionId: null, createdBy: null, createdAt: new Date() });
    await dashboards.transaction(owner, (tx) => tx.deleteDashboard(record.id));
    expect(await links.findById(id)).to.equal(null);
  });
});
