import { expect } from 'chai';
import { LibpgQueryValidator } from '../../adapters/sql/libpg-query-validator.js';
import { PgWarehouse } from '../../adapters/warehouse/pg-warehouse.js';
import { PgliteMetricsSandbox } from '../../adapters/warehouse/pglite-metrics-sandbox.js';
import type { MetricsTables, QueryResult } from '../../application/ports/warehouse.js';
import { createTestWarehouse, type TestWarehouse } from '../support/warehouse.js';

const caps = { cellBytes: 4096, resultBytes: 65536 };
const noRows: MetricsTables = { dashboards: [], daily_views: [], publishes: [], refresh_runs: [] };

/** Both query adapters measure cells and results in the database, with small caps to show the cut. */
for (const kind of ['pg warehouse', 'self sandbox'] as const) {
  describe(`${kind}: bytes per cell and per result`, function () {
    this.timeout(120_000);
    let database: TestWarehouse | undefined;
    let run: (sql: string) => Promise<QueryResult>;
    let close: () => Promise<void>;

    before(async () => {
      const validator = new LibpgQueryValidator();
      if (kind === 'pg warehouse') {
        database = await createTestWarehouse();
        const target = new PgWarehouse(validator, undefined, caps).open(database.url);
        run = (sql) => target.run(sql);
        close = async () => database?.drop();
      } else {
        const sandbox = new PgliteMetricsSandbox(validator, { caps });
        run = (sql) => sandbox.run('user:caps', noRows, sql);
        close = () => sandbox.close();
      }
    });

    after(async () => close());

    it('refuses a cell over the cap, naming its column', async () => {
      const error = await run(`select 1 as small, repeat('x', 5000) as big`).then(
        () => null,
        (e: Error) => e,
      );
      expect(error?.message).to.equal('query failed: a value in column "big" is larger than 4096 bytes, the cap for one cell; select a shorter value, for example left(big::text, 1000)');
    });

    it('cuts the rows where their bytes pass the cap per result, in order, and says it was cut', async () => {
      const result = await run(`select g, repeat('y', 1000) as filler from generate_series(1, 1000) as g order by g`);
      expect(result.truncated).to.equal(true);
      expect(result.rows.length).to.be.within(50, 66);
      expect(result.rows.map((r) => r.g)).to.deep.equal(result.rows.map((_, i) => i + 1));
      expect(result.columns.map((c) => [c.name, c.type])).to.deep.equal([
        ['g', 'integer'],
        ['filler', 'text'],
      ]);
    });

    it('returns small results whole, duplicate names and types as before', async () => {
      const result = await run(`select 1 as a, 'two' as a, now()::date as day, 2.5::numeric as n`);
      expect(result.truncated).to.equal(false);
      expect(result.columns.map((c) => c.type)).to.deep.equal(['integer', 'text', 'date', 'numeric']);
      expect(result.rows).to.have.length(1);
      expect(result.rows[0]!.a).to.equal('two');
      expect(result.rows[0]!.n).to.equal(2.5);
    });
  });
}
