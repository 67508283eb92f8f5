import type { DataSource } from 'typeorm';
import { MemoryViewCounter } from '../../adapters/memory/memory-view-counter.js';
import { MemoryViewerTickets } from '../../adapters/memory/memory-viewer-tickets.js';
import { openDataSource } from '../../adapters/typeorm/data-source.js';
import { TypeormViewCounter } from '../../adapters/typeorm/typeorm-view-counter.js';
import { TypeormViewerTickets } from '../../adapters/typeorm/typeorm-viewer-tickets.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { describeViewCounterContract } from './view-counter.contract.js';
import { describeViewerTicketsContract } from './viewer-tickets.contract.js';

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
