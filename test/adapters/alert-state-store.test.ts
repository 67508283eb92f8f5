import { expect } from 'chai';
import { MemoryAlertStateStore } from '../../adapters/memory/memory-alert-state-store.js';
import { MemoryDashboardStore } from '../../adapters/memory/memory-dashboard-store.js';
import { PostgresAlertStateStore } from '../../adapters/postgres/postgres-alert-state-store.js';
import { PostgresDashboardStore } from '../../adapters/postgres/postgres-dashboard-store.js';
import { aDashboard } from '../support/mothers.js';
import { openTestDatabase, type OpenTestDatabase } from '../support/database.js';
import { describeAlertStateStoreContract } from './alert-state-store.contract.js';

describeAlertStateStoreContract('memory', async () => ({ alerts: new MemoryAlertStateStore(), dashboards: new MemoryDashboardStore() }));

describe('adapters: alert states on PostgreSQL', function () {
  this.timeout(60_000);
  let database: OpenTestDatabase;
  before(async () => {
    database = await openTestDatabase();
  });
  after(() => database?.close());

  describeAlertStateStoreContract('PostgreSQL', async () => ({
    alerts: new PostgresAlertStateStore(database.dataSource),
    dashboards: new PostgresDashboardStore(database.dataSource),
  }));

  it('deletes a dashboard\'s alert states and failure streak with the dashboard', async () => {
    const dashboards = new PostgresDashboardStore(database.dataSource);
    const alerts = new PostgresAlertStateStore(database.dataSource);
    const owner = { kind: 'user' as const, id: crypto.randomUUID() };
    const record = aDashboard(owner);
    await dashboards.transaction(owner, (tx) => tx.insertDashboard(record));
    const now = new Date();
    await alerts.replaceStates(record.id, [{ alertId: 'a', status: 'firing', value: 1, changedAt: now, checkedAt: now }]);
    await alerts.setFailureStreak(record.id, { since: now, failures: 1, lastError: 'x' });
    await dashboards.transaction(owner, (tx) => tx.deleteDashboard(record.id));
    const rows: unknown[] = await database.dataSource.query(
      `SELECT 1 FROM dashboard_alert_states WHERE dashboard_id = $1 UNION ALL SELECT 1 FROM refresh_failure_streaks WHERE dashboard_id = $1`,
      [record.id],
    );
    expect(rows).to.deep.equal([]);
  });
});
