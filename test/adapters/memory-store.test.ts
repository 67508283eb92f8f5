import { MemoryAccountStore } from '../../adapters/memory/memory-account-store.js';
import { MemoryDashboardStore } from '../../adapters/memory/memory-dashboard-store.js';
import { describeAccountStoreContract } from './account-store.contract.js';
import { describeDashboardStoreContract } from './dashboard-store.contract.js';

describeAccountStoreContract('memory', async () => ({ store: new MemoryAccountStore(), close: async () => {} }));
describeDashboardStoreContract('memory', async () => ({ store: new MemoryDashboardStore(), close: async () => {} }));
