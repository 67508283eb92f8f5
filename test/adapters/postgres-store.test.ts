import type { DataSource } from 'typeorm';
import { openDataSource } from '../../adapters/typeorm/data-source.js';
import { TypeormAccountStore } from '../../adapters/typeorm/typeorm-account-store.js';
import { TypeormDashboardStore } from '../../adapters/typeorm/typeorm-dashboard-store.js';
import { createTestDatabase } from '../support/database.js';
import { describeAccountStoreContract } from './account-store.contract.js';
import { describeDashboardStoreContract } from './dashboard-store.contract.js';

async function freshDatabase(): Promise<{ dataSource: DataSource; close(): Promise<void> }> {
  const database = await createTestDatabase();
  const dataSource = await openDataSource(database.url);
  return {
    dataSource,
    async close() {
      await dataSource.destroy();
      await database.drop();
    },
  };
}

describeAccountStoreContract('PostgreSQL', async () => {
  const { dataSource, close } = await freshDatabase();
  return { store: new TypeormAccountStore(dataSource), close };
});

describeDashboardStoreContract('PostgreSQL', async () => {
  const { dataSource, close } = await freshDatabase();
  return { store: new TypeormDashboardStore(dataSource), close };
});
