import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DataSource } from 'typeorm';
import { MemoryOAuthStore } from '../../adapters/memory/memory-oauth-store.js';
import { openDataSource } from '../../adapters/postgres/data-source.js';
import { TypeormAccountStore } from '../../adapters/postgres/typeorm-account-store.js';
import { TypeormOAuthStore } from '../../adapters/postgres/typeorm-oauth-store.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { makeAuthKit } from '../support/oauth-kit.js';
import { describeOAuthFlows } from './oauth-flows.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { testSettings } from '../support/settings.js';

describeOAuthFlows('memory adapters', async (wrap = (store) => store) => makeAuthKit({ store: wrap(new MemoryOAuthStore()) }));

describe('OAuth flows on PostgreSQL', () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  before(async () => {
    database = await createMigratedTestDatabase();
    dataSource = await openDataSource(database.url, { poolSize: 5 });
  });
  beforeEach(() => dataSource.query('TRUNCATE oauth_clients, web_sessions, users, workspaces CASCADE'));
  after(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  describeOAuthFlows('typeorm adapters', async (wrap = (store) => store) =>
    makeAuthKit({ store: wrap(new TypeormOAuthStore(dataSource)), accounts: new TypeormAccountStore(dataSource) }),
  );
});

// The embedded database serves one session at a time: a flow that reads another store while its own
// transaction is open would wait for ever there, and only there.
describe('OAuth flows on the embedded PGlite', function () {
  this.timeout(60_000);
  let dataDir: string;
  let app: AppContainer;
  let dataSource: DataSource;

  before(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'dashpub-oauth-pglite-'));
    app = await buildContainer(testSettings({ dataDir, databaseUrl: null }), { refreshWorkers: false });
    dataSource = app.container.get(DataSource);
  });
  beforeEach(() => dataSource.query('TRUNCATE oauth_clients, web_sessions, users, workspaces CASCADE'));
  after(async () => {
    await app?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describeOAuthFlows('typeorm adapters on PGlite', async (wrap = (store) => store) =>
    makeAuthKit({ store: wrap(new TypeormOAuthStore(dataSource)), accounts: new TypeormAccountStore(dataSource) }),
  );
});
