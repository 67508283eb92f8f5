import { buildContainer } from '../../shells/container.js';
import { createMigratedTestDatabase } from '../support/database.js';
import { testSettings } from '../support/settings.js';
import { describeOwnerDashboards } from '../application/owner-dashboards.js';

describeOwnerDashboards('PostgreSQL', async () => {
  const database = await createMigratedTestDatabase();
  const app = await buildContainer(testSettings({ databaseUrl: database.url }), { role: 'cli' });
  return {
    container: app.container,
    async close() {
      await app.close();
      await database.drop();
    },
  };
});
