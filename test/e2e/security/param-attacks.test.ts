import { expect } from 'chai';
import pg from 'pg';
import { escapeHtml } from '../../../domain/html.js';
import { notices, paramWorld, type ParamWorld } from '../../support/param-fixtures.js';

const OPTIONS = ['a', "b' OR '1'='1", '"},{"x'];

/** Every parameter type's value echoed back by the query, next to a count the injections would change. */
const echoSpec = () => ({
  title: 'Echo',
  queries: {
    echo: {
      sql: `SELECT :q AS q, :s AS s, array_to_string(:m, '|') AS m, :d::text AS d, :r.from::text AS r_from, :n AS n,
                   (SELECT count(*) FROM sales) AS sales_rows`,
    },
  },
  params: [
    { id: 'q', type: 'text', default: 'start' },
    { id: 's', type: 'select', options: OPTIONS, default: 'a' },
    { id: 'm', type: 'multi_select', options: OPTIONS, default: ['a'] },
    { id: 'd', type: 'date', default: '2024-01-01' },
    { id: 'r', type: 'date_range', default: '2024-01-01..2024-01-02' },
    { id: 'n', type: 'number', default: 1 },
  ],
  panels: [{ id: 'rows', type: 'table', query: 'echo' }],
});

/** The table's cells, in order, as the page shows them (escaped text). */
const cells = (html: string) => [...html.matchAll(/<td[^>]*>([^<]*)<\/td>/g)].map((m) => m[1]);

/**
 * Issue 34: a page's parameters reach SQL only as bound values. SQL in any parameter comes back as data,
 * markup in a value is escaped wherever it shows, a private dashboard's parameters draw nothing for a
 * stranger, and keys that are not parameters change nothing.
 */
describe('e2e security: dashboard parameters', function () {
  this.timeout(120_000);
  let world: ParamWorld;

  before(async () => {
    world = await paramWorld({ paramRendersPerMinute: 1000 });
    await world.publish('echo', echoSpec());
    await world.publish('hidden', echoSpec(), undefined, { visibility: 'private' });
  });
  after(async () => world?.close());
  afterEach(() => expect(world.server.errors).to.deep.equal([]));

  it('SQL through the text, select and multi_select parameters comes back as the value, and runs nothing', async () => {
    const sqlText = "x'); DROP TABLE sales; --";
    const query = new URLSearchParams([['q', sqlText], ['s', OPTIONS[1]!], ['m', OPTIONS[1]!], ['m', OPTIONS[2]!]]);
    const page = await world.get(`/echo?${query}`);
    expect(page.status).to.equal(200);
    expect(cells(page.text)).to.deep.equal([sqlText, OPTIONS[1], `${OPTIONS[1]}|${OPTIONS[2]}`, '2024-01-01', '2024-01-01', '1', '6'].map(escapeHtml));
    expect(cells((await world.get('/echo?q=again')).text).at(-1)).to.equal('6');
  });

  it('SQL through the date, date range and number parameters is refused as a value, with the defaults and a notice', async () => {
    const query = new URLSearchParams({ d: "2024-01-01'; DROP TABLE sales; --", r: '2024-01-01..2024-01-02; SELECT 1', n: '1 OR 1=1' });
    const page = await world.get(`/echo?${query}`);
    expect(page.status).to.equal(200);
    expect(notices(page.text)).to.have.length(3);
    expect(cells(page.text)).to.deep.equal(['start', 'a', 'a', '2024-01-01', '2024-01-01', '1', '6']);
    expect(page.text).not.to.match(/syntax|ERROR|pg_/);
  });

  it('markup in a value is escaped in the table, the form and the notice', async () => {
    const markup = '<img src=x onerror=alert(1)>';
    const page = await world.get(`/echo?${new URLSearchParams({ q: markup, s: markup })}`);
    expect(page.text).not.to.contain(markup);
    expect(page.text).not.to.contain('<script');
    expect(cells(page.text)[0]).to.equal(escapeHtml(markup));
    expect(page.text).to.contain(`name="q" maxlength="200" value="${escapeHtml(markup)}"`);
    expect(notices(page.text)).to.deep.equal([escapeHtml(`s: "${markup}" is not one of the options; showing the default`)]);
  });

  it('keys that are not parameters (__proto__, constructor, theme) change nothing', async () => {
    const plain = await world.get('/echo');
    const odd = await world.get('/echo?__proto__=x&constructor=1&toString=2&q.from=3');
    expect(odd.status).to.equal(200);
    expect(odd.headers.etag).to.equal(plain.headers.etag);
  });

  it('a stranger\'s parameter values on a private dashboard draw nothing and get the page\'s 404', async () => {
    const answer = await world.get('/hidden?q=probe');
    expect(answer.status).to.equal(404);
    expect(answer.text).not.to.contain('probe');
    const client = new pg.Client({ connectionString: world.database.url });
    await client.connect();
    try {
      const { rows } = await client.query(
        `SELECT count(*)::int AS n FROM param_renders r JOIN dashboards d ON d.id = r.dashboard_id WHERE d.slug = 'hidden'`,
      );
      expect(rows[0].n).to.equal(0);
    } finally {
      await client.end();
    }
  });
});
