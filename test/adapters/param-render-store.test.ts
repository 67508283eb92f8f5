import { expect } from 'chai';
import { MemoryDashboardStore } from '../../adapters/memory/memory-dashboard-store.js';
import { MemoryParamRenderStore } from '../../adapters/memory/memory-param-render-store.js';
import { PostgresDashboardStore } from '../../adapters/postgres/postgres-dashboard-store.js';
import { PostgresParamRenderStore } from '../../adapters/postgres/postgres-param-render-store.js';
import { aDashboard } from '../support/mothers.js';
import { openTestDatabase, type OpenTestDatabase } from '../support/database.js';
import { describeParamRenderStoreContract } from './param-render-store.contract.js';

describeParamRenderStoreContract('memory', async () => ({ renders: new MemoryParamRenderStore(), dashboards: new MemoryDashboardStore() }));

describe('adapters: parameter renders on PostgreSQL', function () {
  this.timeout(60_000);
  let database: OpenTestDatabase;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database?.close());

  describeParamRenderStoreContract('PostgreSQL', async () => ({
    renders: new PostgresParamRenderStore(database.dataSource),
    dashboards: new PostgresDashboardStore(database.dataSource),
  }));

  it('deletes a dashboard\'s renders and budget with the dashboard', async () => {
    const dashboards = new PostgresDashboardStore(database.dataSource);
    const renders = new PostgresParamRenderStore(database.dataSource);
    const owner = { kind: 'user' as const, id: crypto.randomUUID() };
    const dashboard = aDashboard(owner);
    await dashboards.transaction(owner, (tx) => tx.insertDashboard(dashboard));
    await renders.put(dashboard.id, crypto.randomUUID(), 'k', { html: 'x', sha256: 'y' }, new Date(), 5);
    await renders.takeBudget(dashboard.id, new Date(), 5);
    await dashboards.transaction(owner, (tx) => tx.deleteDashboard(dashboard.id));
    const rows: Array<{ n: number }> = await database.dataSource.query(
      `SELECT (SELECT count(*) FROM param_renders WHERE dashboard_id = $1)::int + (SELECT count(*) FROM param_render_budgets WHERE dashboard_id = $1)::int AS n`,
      [dashboard.id],
    );
    expect(rows[0]!.n).to.equal(0);
  });
});
