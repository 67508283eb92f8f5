import { MemoryRefreshStateStore } from '../../adapters/memory/memory-refresh-state-store.js';
import { MemoryRefreshQueue } from '../../adapters/jobs/memory-refresh-queue.js';
import { PgBossRefreshQueue } from '../../adapters/jobs/pg-boss-refresh-queue.js';
import { TypeormRefreshStateStore } from '../../adapters/postgres/typeorm-refresh-state-store.js';
import { openTestDatabase, type OpenTestDatabase } from '../support/database.js';
import { describeRefreshQueueContract } from './refresh-queue.contract.js';
import { describeRefreshStateStoreContract } from './refresh-state-store.contract.js';

describeRefreshStateStoreContract('memory', async () => ({ store: new MemoryRefreshStateStore(), close: async () => {} }));

describeRefreshQueueContract('memory', async () => {
  const queue = new MemoryRefreshQueue();
  return { queue, work: async (handler) => queue.work(handler), close: () => queue.idle() };
});

describe('refresh state and queue on PostgreSQL', function () {
  this.timeout(60_000);
  let database: OpenTestDatabase;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database?.close());

  describeRefreshStateStoreContract('TypeORM', async () => ({
    store: new TypeormRefreshStateStore(database.dataSource),
    // Each test starts from empty tables, as each memory store does.
    close: async () => void (await database.dataSource.query('TRUNCATE refresh_schedules, refresh_runs, dashboard_live_renders')),
  }));

  describeRefreshQueueContract('pg-boss', async () => {
    const queue = new PgBossRefreshQueue(database.url, { worker: true, pollingIntervalSeconds: 0.5 });
    return {
      queue,
      work: (refresh) => queue.work({ refresh, tick: async () => {}, sweepFiles: async () => {}, deliver: async () => {} }),
      close: async () => {
        await queue.close();
        // Jobs left by one test must not fold the next test's into them.
        await database.dataSource.query('DELETE FROM pgboss.job');
      },
    };
  });
});
