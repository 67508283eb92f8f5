import { expect } from 'chai';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { createTestWarehouse, sql, type TestWarehouse } from '../support/warehouse.js';
import { testSettings } from '../support/settings.js';
import { makeUser, seedSales } from '../support/refresh-fixtures.js';
import { ManageConnections } from '../../application/connections/manage-connections.js';
import { ConnectionAccess } from '../../application/connections/connection-access.js';
import type { SqlTarget } from '../../application/ports/warehouse.js';
import { runSpecQueries } from '../../application/refresh/run-queries.js';
import { parseDashboardSpec } from '../../domain/dashboard-spec.js';
import { bindParams } from '../../domain/spec-params.js';

/** Text that would end a literal, a statement or an array if it were ever written into the SQL. */
const PAYLOADS = [
  "x'; DROP TABLE sales; --",
  "x' OR '1'='1",
  '"}, {"a',
  "$$; SELECT pg_sleep(1); $$",
  '1); DELETE FROM sales; SELECT (1',
  '\\\'; SELECT 1; --',
];

const SPEC = parseDashboardSpec({
  title: 'Echo',
  queries: {
    echo: {
      sql: `SELECT :t AS t, :s AS s, array_to_string(:m, '|') AS m, :d::text AS d, :r.from::text AS r_from, :r.to::text AS r_to,
                   :n AS n, (SELECT count(*) FROM sales) AS sales_rows`,
    },
  },
  params: [
    { id: 't', type: 'text' },
    { id: 's', type: 'select', options: PAYLOADS },
    { id: 'm', type: 'multi_select', options: PAYLOADS },
    { id: 'd', type: 'date', default: '2026-01-02' },
    { id: 'r', type: 'date_range', default: '2026-01-01..2026-01-31' },
    { id: 'n', type: 'number', default: 3.5 },
  ],
  panels: [{ id: 'p', type: 'table', query: 'echo' }],
});

describe('parameters bound, never spliced, on self and on a warehouse', function () {
  this.timeout(90_000);
  let service: TestDatabase;
  let warehouse: TestWarehouse;
  let app: AppContainer;
  const targets: Record<string, SqlTarget> = {};

  before(async () => {
    service = await createMigratedTestDatabase();
    warehouse = await createTestWarehouse();
    await seedSales(warehouse.adminUrl);
    // `self` gets room for a loaded machine: what is under test is the binding, not the time limit.
    app = await buildContainer(testSettings({ databaseUrl: service.url, selfQueryTimeoutSeconds: 60 }), { refreshWorkers: false });
    const { user } = await makeUser(app.container, 'pro');
    const connection = await app.container.get(ManageConnections).create({ ownerUserId: user.id, workspaceId: null, label: 'wh', url: warehouse.url });
    const access = app.container.get(ConnectionAccess);
    targets.warehouse = await access.forDashboard({ kind: 'user', id: user.id }, connection.id);
    targets.self = await access.forDashboard({ kind: 'user', id: user.id }, 'self');
  });

  after(async () => {
    await app?.close();
    await warehouse?.drop();
    await service?.drop();
  });

  for (const name of ['warehouse', 'self']) {
    it(`${name}: every text-like parameter comes back as the exact value sent`, async () => {
      const spec = name === 'self' ? { ...SPEC, queries: { echo: { sql: SPEC.queries!.echo!.sql.replace('(SELECT count(*) FROM sales)', '(SELECT count(*) FROM dashboards)') } } } : SPEC;
      for (const payload of PAYLOADS) {
        const { data } = await runSpecQueries(spec, targets[name]!, {
          t: payload, s: payload, m: [payload, 'b'], d: '2026-01-02', r: { from: '2026-01-01', to: '2026-01-31' }, n: 3.5,
        });
        expect(data.echo).to.deep.equal([{
          t: payload, s: payload, m: `${payload}|b`, d: '2026-01-02', r_from: '2026-01-01', r_to: '2026-01-31', n: 3.5,
          sales_rows: name === 'self' ? 0 : 6,
        }]);
      }
    });

    it(`${name}: a date or number that is really SQL fails as a bad value and runs nothing`, async () => {
      const target = targets[name]!;
      for (const [sqlText, value] of [['SELECT :d AS v', '2026-01-01; DROP TABLE sales'], ['SELECT :n AS v', '1; DROP TABLE sales']] as const) {
        const bound = bindParams(sqlText, SPEC.params!, { d: value, n: value });
        try {
          await target.run(bound.sql, undefined, bound.values);
          expect.fail('ran');
        } catch (err) {
          expect((err as Error).message).to.match(/invalid input syntax for type (date|numeric)/);
        }
      }
    });
  }

  it('the warehouse still holds every row afterwards', async () => {
    const { data } = await runSpecQueries(parseDashboardSpec({ title: 't', queries: { c: { sql: 'SELECT count(*) AS n FROM sales' } }, panels: [{ id: 'p', type: 'table', query: 'c' }] }), targets.warehouse!);
    expect(data.c).to.deep.equal([{ n: 6 }]);
    await sql(warehouse.adminUrl, 'SELECT 1 FROM sales LIMIT 1');
  });
});
