import { TypeormAccountStore } from '../../adapters/postgres/typeorm-account-store.js';
import { PostgresDashboardStore } from '../../adapters/postgres/postgres-dashboard-store.js';
import { openTestDatabase } from '../support/database.js';
import { describeAccountStoreContract } from './account-store.contract.js';
import { describeDashboardStoreContract } from './dashboard-store.contract.js';

describeAccountStoreContract('PostgreSQL', async () => {
  const { dataSource, close } = await openTestDatabase();
  return { store: new TypeormAccountStore(dataSource), close };
});

// Prepared statements on, as `dashpub serve` on DATABASE_URL runs it; the PGlite suite covers them off.
describeDashboardStoreContract('PostgreSQL', async () => {
  const { dataSource, close } = await openTestDatabase();
  return { store: new PostgresDashboardStore(dataSource, { preparedStatements: true }), close };
});
