import type { DataSource } from 'typeorm';
import { MemoryOAuthStore } from '../../adapters/memory/memory-oauth-store.js';
import { openDataSource } from '../../adapters/typeorm/data-source.js';
import { TypeormAccountStore } from '../../adapters/typeorm/typeorm-account-store.js';
import { TypeormOAuthStore } from '../../adapters/typeorm/typeorm-oauth-store.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { makeAuthKit } from '../support/oauth-kit.js';
import { describeOAuthFlows } from './oauth-flows.js';

describeOAuthFlows('memory adapters', async (wrap = (store) => store) => makeAuthKit({ store: wrap(new MemoryOAuthStore()) }));

describe('OAuth flows on PostgreSQL', () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  before(async () => {
    database = await createTestDatabase();
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
