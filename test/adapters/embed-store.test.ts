import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { SecretBox } from '../../adapters/crypto/secret-box.js';
import { MemoryDashboardStore } from '../../adapters/memory/memory-dashboard-store.js';
import { MemoryEmbedStore } from '../../adapters/memory/memory-embed-store.js';
import { PostgresDashboardStore } from '../../adapters/postgres/postgres-dashboard-store.js';
import { PostgresEmbedStore } from '../../adapters/postgres/postgres-embed-store.js';
import { aDashboard } from '../support/mothers.js';
import { openTestDatabase, type OpenTestDatabase } from '../support/database.js';
import { describeEmbedStoreContract } from './embed-store.contract.js';

describeEmbedStoreContract('memory', async () => ({ embeds: new MemoryEmbedStore(), dashboards: new MemoryDashboardStore() }));

describe('adapters: embeds on PostgreSQL', function () {
  this.timeout(60_000);
  let database: OpenTestDatabase;
  const box = SecretBox.fromKey('embed-store-test-key', 'embed secret');
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database?.close());

  describeEmbedStoreContract('PostgreSQL', async () => ({
    embeds: new PostgresEmbedStore(database.dataSource, box),
    dashboards: new PostgresDashboardStore(database.dataSource),
  }));

  it('stores the secret sealed: the row holds no plaintext, and under another key it reads as none', async () => {
    const owner = { kind: 'workspace' as const, id: randomUUID() };
    await new PostgresEmbedStore(database.dataSource, box).saveSecret(owner, { secret: 'plain-embed-secret-value', createdAt: new Date() });
    const rows: Array<{ sealed_secret: string }> = await database.dataSource.query(`SELECT sealed_secret FROM embed_secrets WHERE owner_id = $1`, [owner.id]);
    expect(rows[0]!.sealed_secret).to.match(/^v1:/).and.not.include('plain-embed-secret-value');
    const otherKey = new PostgresEmbedStore(database.dataSource, SecretBox.fromKey('another-key', 'embed secret'));
    expect(await otherKey.secret(owner)).to.equal(null);
  });

  it('deletes a dashboard’s embed settings with the dashboard', async () => {
    const dashboards = new PostgresDashboardStore(database.dataSource);
    const embeds = new PostgresEmbedStore(database.dataSource, box);
    const owner = { kind: 'user' as const, id: randomUUID() };
    const record = aDashboard(owner);
    await dashboards.transaction(owner, (tx) => tx.insertDashboard(record));
    await embeds.saveSettings(record.id, { enabled: true, origins: ['https://a.example'] }, new Date());
    await dashboards.transaction(owner, (tx) => tx.deleteDashboard(record.id));
    const rows: unknown[] = await database.dataSource.query(`SELECT 1 FROM embed_settings WHERE dashboard_id = $1`, [record.id]);
    expect(rows).to.deep.equal([]);
  });
});
