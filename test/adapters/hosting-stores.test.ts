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
