import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildContainer } from '../../shells/container.js';
import { testSettings } from '../support/settings.js';
import { describeOwnerDashboards } from '../application/owner-dashboards.js';

describeOwnerDashboards('embedded PGlite', async () => {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'dashpub-pglite-'));
  const app = await buildContainer(testSettings({ dataDir, databaseUrl: null }), { role: 'server', refreshWorkers: false });
  return {
    container: app.container,
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
});
