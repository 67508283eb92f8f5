import { buildContainer } from '../../shells/container.js';
import { createMigratedTestDatabase } from '../support/database.js';
import { testSettings } from '../support/settings.js';
import { describeDashboardUseCases } from '../application/dashboard-use-cases.js';

describeDashboardUseCases('PostgreSQL', async () => {
  const database = await createMigratedTestDatabase();
  const app = await buildContainer(testSettings({ databaseUrl: database.url }));
  return {
    container: app.container,
    async close() {
      await app.close();
      await database.drop();
    },
  };
});
