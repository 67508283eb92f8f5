import { expect } from 'chai';
import pg from 'pg';
import { BUDGET_NOTICE } from '../../application/hosting/param-pages.js';
import { escapeHtml } from '../../domain/html.js';
import { json, sql } from '../support/refresh-fixtures.js';
import { notices, paramSpec, paramWorld, statValues, type ParamWorld } from '../support/param-fixtures.js';

describe('parameter pages over HTTP (in process, PostgreSQL)', function () {
  this.timeout(120_000);
  let world: ParamWorld;

  before(async () => {
    world = await paramWorld({ paramRendersPerMinute: 1000 });
    await world.publish('sales', paramSpec());
  });
  after(async () => world?.close());

  it('the default page carries a GET form with one labelled control per parameter and the defaults\' numbers', async () => {
    const page = await world.get('/sales');
    expect(page.status).to.equal(200);
    expect(page.text).to.contain('<form class="params" method="get" aria-label="Parameters">');
    expect(page.text).to.contain('<label><span>Region</span><select name="region">');
    expect(page.text).to.contain('<option selected>north</option><option>south</option>');
    expect(page.text).to.contain('name="period.from" aria-label="Period from" value="2024-01-01"');
    expect(page.text).to.contain('<label><span>Minimum amount</span><input type="number" step="any" name="min_amount" value="0" min="0">');
    expect(page.text).to.contain("form-action 'self'");
    expect(page.text).not.to.contain('<script');
    expect(statValues(page.text)).to.deep.equal(['350.5', '3']);
  });

  it('other values render other numbers, the same for either way of writing the range', async () => {
    const south = await world.get('/sales?region=south');
    expect(statValues(south.text)).to.deep.equal(['245.25', '3']);
    expect(south.text).to.contain('<option>north</option><option selected>south</option>');
    const day = await world.get('/sales?region=south&period=2024-01-02..2024-01-02');
    const same = await world.get('/sales?period.from=2024-01-02&period.to=2024-01-02&region=south');
    expect(statValues(day.text)).to.deep.equal(['95.25', '1']);
    expect(same.headers.etag).to.equal(day.headers.etag);
    expect(south.headers.etag).not.to.equal((await world.get('/sales')).headers.etag);
  });

  it('a refresh brings new rows to values drawn before it', async () => {
    expect(statValues((await world.get('/sales?region=south&min_amount=90')).text)).to.deep.equal(['95.25', '1']);
    await sql(world.warehouse.adminUrl, "INSERT INTO sales VALUES ('2024-01-03', 'south', 500)");
    await world.refresh('sales');
    expect(statValues((await world.get('/sales?region=south&min_amount=90')).text)).to.deep.equal(['595.25', '2']);
    await sql(world.warehouse.adminUrl, "DELETE FROM sales WHERE amount = 500");
    await world.refresh('sales');
  });

  it('invalid values show the defaults and a notice naming the value, never an error', async () => {
    const page = await world.get(`/sales?region=${encodeURIComponent("west' OR 1=1 --")}&min_amount=-5&period=2024-13-01..2024-01-02`);
    expect(page.status).to.equal(200);
    expect(statValues(page.text)).to.deep.equal(['350.5', '3']);
    expect(notices(page.text)).to.deep.equal([
      escapeHtml('Region: "west\' OR 1=1 --" is not one of the options; showing the default'),
      escapeHtml('Period: "2024-13-01..2024-01-02" is not a date range (YYYY-MM-DD..YYYY-MM-DD); showing the default'),
      'Minimum amount: &quot;-5&quot; is below the minimum 0; showing the default',
    ]);
  });

  it('get_dashboard lists the parameters with their defaults', async () => {
    const answer = await world.tools.call(world.principal, 'get_dashboard', { slug: 'sales' });
    expect(json(answer).params).to.deep.equal([
      { id: 'region', type: 'select', label: 'Region', default: 'north', required: false, options: { query: 'regions' } },
      { id: 'period', type: 'date_range', label: 'Period', default: { from: '2024-01-01', to: '2024-01-03' }, required: false },
      { id: 'min_amount', type: 'number', label: 'Minimum amount', default: 0, required: false, min: 0 },
    ]);
  });

  it('validate_cube_sql checks placeholders against the params it is given and runs the query with their defaults', async () => {
    const spec = paramSpec();
    const call = (args: Record<string, unknown>) => world.tools.call(world.principal, 'validate_cube_sql', { connection: world.connectionId, ...args });
    const ok = await call({ sql: spec.queries.totals.sql, params: spec.params });
    expect(ok.isError, ok.content[0]!.text).to.not.equal(true);
    expect(json(ok).sample_rows).to.deep.equal([{ total: 350.5, sales: 3 }]);
    const missing = await call({ sql: spec.queries.totals.sql });
    expect(missing.content[0]!.text).to.contain('sql uses :region, but params declares no parameter "region"');
    const unused = await call({ sql: 'SELECT 1 AS one', params: [{ id: 'x', type: 'text' }] });
    expect(unused.content[0]!.text).to.contain('params "x" is never used by sql');
  });

  it('a page with no parameters ignores its query string', async () => {
    await world.publish('plain', { title: 'Plain', data: { d: [{ n: 1 }] }, panels: [{ id: 's', type: 'stat', query: 'd', value: 'n' }] });
    const page = await world.get('/plain?region=south');
    expect(page.text).not.to.contain('<form');
    expect(statValues(page.text)).to.deep.equal(['1']);
  });

  it('a placeholder with no parameter is refused at publish, naming it', async () => {
    const spec = paramSpec();
    spec.queries.totals.sql += ' AND region <> :other';
    const answer = await world.tools.call(world.principal, 'publish_dashboard', { path: 'broken', spec, connection: world.connectionId });
    expect(answer.isError).to.equal(true);
    expect(answer.content[0]!.text).to.contain('spec.queries.totals.sql uses :other, but spec.params declares no parameter "other"');
  });

  it('renders are shared by instances and end with the version they were drawn for', async () => {
    const other = await world.instance({ paramRendersPerMinute: 0 });
    expect(statValues((await world.get('/sales?region=south')).text)).to.deep.equal(['245.25', '3']);
    // Drawn by the first instance: the second, with no budget at all, serves it from the store.
    const cached = await world.get('/sales?region=south', other.server);
    expect(statValues(cached.text)).to.deep.equal(['245.25', '3']);
    const fresh = await world.get('/sales?region=south&min_amount=100', other.server);
    expect(statValues(fresh.text)).to.deep.equal(['350.5', '3']);
    expect(notices(fresh.text)).to.deep.equal([escapeHtml(BUDGET_NOTICE)]);

    await world.publish('sales', paramSpec('Sales, second version'));
    const next = await world.get('/sales?region=south');
    expect(next.text).to.contain('Sales, second version');
    const client = new pg.Client({ connectionString: world.database.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT count(DISTINCT r.version_id)::int AS versions FROM param_renders r JOIN dashboards d ON d.id = r.dashboard_id WHERE d.slug = 'sales'`,
      );
      expect(rows[0].versions).to.equal(1);
    } finally {
      await client.end();
    }
  });
});

describe('parameter render budget (in process, PostgreSQL)', function () {
  this.timeout(180_000);
  let world: ParamWorld;

  before(async () => {
    world = await paramWorld({ paramRendersPerMinute: 5, paramRendersKept: 50 });
    await world.publish('sales', paramSpec());
  });
  after(async () => world?.close());

  it('draws a shared URL opened by many at once once: every viewer gets its values, and the minute keeps the rest of its budget', async () => {
    const pages = await Promise.all(Array.from({ length: 40 }, () => world.get('/sales?region=south&min_amount=7')));
    expect(pages.map((p) => notices(p.text)).filter((list) => list.length > 0)).to.deep.equal([]);
    expect(new Set(pages.map((p) => statValues(p.text)[0]))).to.deep.equal(new Set(['245.25']));
    expect(new Set(pages.map((p) => p.headers.etag)).size).to.equal(1);
    // One of the minute's five renders was spent: four other values draw, the fifth gets the notice.
    const others = [];
    for (const amount of [11, 12, 13, 14, 15]) others.push(await world.get(`/sales?region=south&min_amount=${amount}`));
    expect(others.map((p) => notices(p.text).includes(escapeHtml(BUDGET_NOTICE)))).to.deep.equal([false, false, false, false, true]);
    world.clock.advance(60_000);
  });

  it('holds under a burst of 200 distinct values: five drawn, the rest the default render with a notice', async () => {
    const pages = await Promise.all(Array.from({ length: 200 }, (_, i) => world.get(`/sales?min_amount=${i + 1}`)));
    expect(pages.every((p) => p.status === 200)).to.equal(true);
    const limited = pages.filter((p) => notices(p.text).includes(escapeHtml(BUDGET_NOTICE)));
    const drawn = pages.filter((p) => notices(p.text).length === 0);
    expect(drawn).to.have.length(5);
    expect(limited).to.have.length(195);
    expect(limited.every((p) => statValues(p.text)[0] === '350.5')).to.equal(true);
    // A value drawn in the burst is served again from the store, budget or not.
    const value = /name="min_amount" value="(\d+)"/.exec(drawn[0]!.text)![1];
    const again = await world.get(`/sales?min_amount=${value}`);
    expect(notices(again.text)).to.deep.equal([]);
    expect(again.headers.etag).to.equal(drawn[0]!.headers.etag);
  });
});
