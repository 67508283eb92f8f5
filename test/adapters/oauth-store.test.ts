import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { MemoryAccountStore } from '../../adapters/memory/memory-account-store.js';
import { MemoryOAuthStore } from '../../adapters/memory/memory-oauth-store.js';
import { openDataSource } from '../../adapters/postgres/data-source.js';
import { TypeormAccountStore } from '../../adapters/postgres/typeorm-account-store.js';
import { TypeormOAuthStore } from '../../adapters/postgres/typeorm-oauth-store.js';
import type { AccountStore } from '../../application/ports/account-store.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { describeOAuthStoreContract, type OAuthStoreFixture } from './oauth-store.contract.js';
import { aUser, aWorkspace } from '../support/mothers.js';

const name = () => `u${randomBytes(5).toString('hex')}`;

function accountsFixture(accounts: AccountStore): Pick<OAuthStoreFixture, 'newUser' | 'newWorkspace'> {
  return {
    newUser: async () => {
      const handle = name();
      return (await aUser(accounts, { handle })).id;
    },
    newWorkspace: async () => {
      const workspace = await aWorkspace(accounts, { slug: name() });
      return { id: workspace.id, slug: workspace.slug };
    },
  };
}

describeOAuthStoreContract('memory', async () => ({
  store: new MemoryOAuthStore(),
  ...accountsFixture(new MemoryAccountStore()),
  close: async () => undefined,
}));

describe('OAuthStore on PostgreSQL', () => {
  let database: TestDatabase;
  let dataSource: DataSource;

  before(async () => {
    database = await createMigratedTestDatabase();
    dataSource = await openDataSource(database.url, { poolSize: 5 });
  });
  after(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });

  describeOAuthStoreContract('typeorm', async () => ({
    store: new TypeormOAuthStore(dataSource),
    ...accountsFixture(new TypeormAccountStore(dataSource)),
    // One database for the suite; each test starts from empty tables.
    close: () => dataSource.query('TRUNCATE oauth_clients, web_sessions, users, workspaces CASCADE').then(() => undefined),
  }));
});
