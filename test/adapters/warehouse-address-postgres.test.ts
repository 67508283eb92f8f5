import { expect } from 'chai';
import { refusal } from '../support/refusal.js';
import { ManageConnections } from '../../application/connections/manage-connections.js';
import { ConnectionStore } from '../../application/ports/connection-store.js';
import { DashboardStore } from '../../application/ports/dashboard-store.js';
import { RefreshDashboard } from '../../application/refresh/refresh-dashboard.js';
import { DomainError } from '../../domain/errors.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { createTestDatabase, createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { createTestWarehouse, type TestWarehouse } from '../support/warehouse.js';
import { makeUser, registry, salesSpec, seedSales, text } from '../support/refresh-fixtures.js';
import { testSettings } from '../support/settings.js';

const SECRET = 'warehouse-address-secret';
const OWN = "That URL leads to this service's own database server; add your warehouse, on a server of its own, instead.";
const privateText = (host: string) =>
  `The warehouse host "${host}" is on a private network; this service only connects to public warehouses. ` +
  'Its operator can allow private networks with ALLOW_PRIVATE_WAREHOUSES=true.';

/**
 * The address policy on the real stack: the service on PostgreSQL (DATABASE_URL) and a warehouse database
 * on the same server, once with ALLOW_PRIVATE_WAREHOUSES on and once with it off.
 */
describe('warehouse address policy on PostgreSQL', function () {
  this.timeout(90_000);
  let service: TestDatabase;
  let warehouse: TestWarehouse;
  let allowing: AppContainer;
  let refusing: AppContainer;
  let host: string;

  before(async () => {
    service = await createMigratedTestDatabase();
    warehouse = await createTestWarehouse();
    await seedSales(warehouse.adminUrl);
    host = new URL(warehouse.url).hostname;
    allowing = await buildContainer(testSettings({ databaseUrl: service.url, secretKey: SECRET, allowPrivateWarehouses: true }), { refreshWorkers: false });
    refusing = await buildContainer(testSettings({ databaseUrl: service.url, secretKey: SECRET, allowPrivateWarehouses: false }), { refreshWorkers: false });
  });
  after(async () => {
    await refusing?.close();
    await allowing?.close();
    await warehouse?.drop();
    await service?.drop();
  });

  const add = (app: AppContainer, ownerUserId: string, url: string) =>
    app.container.get(ManageConnections).create({ ownerUserId, workspaceId: null, label: 'Sales DB', url });
  const stored = async (app: AppContainer, userId: string) =>
    (await app.container.get<ConnectionStore>(ConnectionStore).list({ kind: 'personal', userId })).length;

  it('refuses a warehouse on 127.0.0.1 when private networks are not allowed, storing nothing', async () => {
    const { user } = await makeUser(refusing.container, 'pro');
    const err = await refusal(add(refusing, user.id, warehouse.url));
    expect(err).to.be.instanceOf(DomainError);
    expect(err!.code).to.equal('forbidden');
    expect(err!.message).to.equal(privateText(host));
    expect(await stored(refusing, user.id)).to.equal(0);
  });

  it("refuses the service's own server even when private networks are allowed, whatever the database, but not another server", async () => {
    const { user } = await makeUser(allowing.container, 'pro');
    const other = await createTestDatabase('dashpub_test_other');
    try {
      for (const url of [service.url, service.url.replace(host, 'localhost'), other.url, other.url.replace(host, '[::1]')]) {
        const err = await refusal(add(allowing, user.id, url));
        expect(err?.message, url).to.equal(OWN);
        expect(err?.code).to.equal('forbidden');
      }
    } finally {
      await other.drop();
    }
    expect(await stored(allowing, user.id)).to.equal(0);
    const connection = await add(allowing, user.id, warehouse.url);
    expect(connection).to.include({ status: 'active', lastError: null });
  });

  it('refuses again at use time: tools and refreshes on a connection made while private networks were allowed', async () => {
    const { user, principal } = await makeUser(allowing.container, 'pro');
    const connection = await add(allowing, user.id, warehouse.url);
    const published = await registry(allowing.container).call(principal, 'publish_dashboard', { path: 'sales', spec: salesSpec(), connection: connection.id });
    expect(published.isError, text(published)).to.equal(undefined);

    // The operator turns ALLOW_PRIVATE_WAREHOUSES off: the stored connection is refused on every open.
    const tools = registry(refusing.container);
    for (const [name, args] of [
      ['introspect_schema', { connection: connection.id }],
      ['validate_cube_sql', { connection: connection.id, sql: 'SELECT 1' }],
    ] as const) {
      const result = await tools.call(principal, name, args);
      expect(result.isError, name).to.equal(true);
      expect(text(result), name).to.equal(privateText(host));
    }
    const republished = await tools.call(principal, 'publish_dashboard', { path: 'sales', spec: salesSpec() });
    expect(republished.isError).to.equal(true);
    expect(text(republished)).to.contain(privateText(host));

    const dashboard = (await refusing.container.get<DashboardStore>(DashboardStore).findDashboard({ kind: 'user', id: user.id }, 'sales'))!;
    const run = await refusing.container.get(RefreshDashboard).run(dashboard.id, 'manual');
    expect(run).to.include({ outcome: 'failure', error: `query "daily": ${privateText(host)}` });
    const status = await tools.call(principal, 'get_refresh_status', { slug: 'sales' });
    expect(text(status)).to.contain(privateText(host));

    const retested = await refusing.container.get(ManageConnections).test(connection.id);
    expect(retested).to.include({ status: 'failing', lastError: privateText(host) });
  });
});
