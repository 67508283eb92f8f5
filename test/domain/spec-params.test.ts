import { expect } from 'chai';
import { refusal } from '../support/refusal.js';
import { parseDashboardSpec } from '../../domain/dashboard-spec.js';
import { readParamValues, valueText } from '../../domain/param-values.js';
import { scanPlaceholders } from '../../domain/sql-placeholders.js';
import { bindParams, defaultValues, type SpecParam } from '../../domain/spec-params.js';

const message = (fn: () => unknown) => refusal(fn).message;

const PARAMS = [
  { id: 'region', type: 'select', label: 'Region', default: 'North', options: ['North', 'South'] },
  { id: 'period', type: 'date_range', default: '2026-01-01..2026-03-31' },
  { id: 'min_total', type: 'number', min: 0, max: 1000, default: 10 },
];
const spec = (sql: string, params: unknown[] = PARAMS, extra: Record<string, unknown> = {}) => ({
  title: 'Sales',
  queries: { sales: { sql } },
  params,
  panels: [{ id: 'p', type: 'table', query: 'sales' }],
  ...extra,
});
const SQL = 'SELECT * FROM sales WHERE region = :region AND day BETWEEN :period.from AND :period.to AND total >= :min_total';
const parsed = () => parseDashboardSpec(spec(SQL)).params as SpecParam[];
const pairs = (query: string) => [...new URLSearchParams(query)] as Array<[string, string]>;

describe('domain: spec parameters', () => {
  describe('placeholders', () => {
    it('are found outside literals, quoted names, dollar quotes, comments and casts', () => {
      const sql = `SELECT ':no', "a:no", $$ :no $$, $t$ :no $t$, E'\\' :no', x::int, a[lo:hi] -- :no
        /* :no /* :no */ :no */ FROM t WHERE a = :yes AND b = :range.from`;
      expect(scanPlaceholders(sql).map((p) => [p.name, p.part])).to.deep.equal([['yes', undefined], ['range', 'from']]);
    });

    it('are rewritten to typed positional parameters, one per distinct placeholder', () => {
      const bound = bindParams(`${SQL} OR region = :region`, parsed(), defaultValues(parsed()));
      expect(bound.sql).to.equal('SELECT * FROM sales WHERE region = ($1::text) AND day BETWEEN ($2::date) AND ($3::date) AND total >= ($4::numeric) OR region = ($1::text)');
      expect(bound.values).to.deep.equal(['North', '2026-01-01', '2026-03-31', '10']);
    });

    it('bind a multi_select as a quoted array literal, whatever its items hold', () => {
      const params = parseDashboardSpec(spec('SELECT 1 WHERE r = ANY(:r)', [{ id: 'r', type: 'multi_select', options: ['a', 'b"},{c\\'] }])).params!;
      expect(bindParams('SELECT :r', params, { r: ['a', 'b"},{c\\'] }).values).to.deep.equal(['{"a","b\\"},{c\\\\"}']);
    });
  });

  describe('refuses at publish', () => {
    it('a placeholder with no parameter, naming it', () => {
      expect(message(() => parseDashboardSpec(spec(`${SQL} AND x = :regoin`)))).to.equal(
        'spec.queries.sales.sql uses :regoin, but spec.params declares no parameter "regoin"',
      );
      expect(message(() => parseDashboardSpec(spec('SELECT :x', [])))).to.contain('no parameter "x"');
    });

    it('a parameter never used, naming it', () => {
      expect(message(() => parseDashboardSpec(spec(SQL, [...PARAMS, { id: 'unused', type: 'text' }])))).to.equal(
        'spec.params[3] "unused" is never used by a query; write it as :unused in one, or remove it',
      );
    });

    it('a date range used without .from or .to, and .from on anything else', () => {
      expect(message(() => parseDashboardSpec(spec(SQL.replace(':period.from', ':period'))))).to.contain('used as :period.from and :period.to');
      expect(message(() => parseDashboardSpec(spec(SQL.replace(':region', ':region.from'))))).to.contain('only a date_range parameter has .from and .to');
    });

    it('bad declarations by field', () => {
      const one = (param: Record<string, unknown>) => message(() => parseDashboardSpec(spec('SELECT :p', [{ id: 'p', ...param }])));
      expect(one({ type: 'colour' })).to.contain('spec.params[0].type must be one of date, date_range, number, text, select, multi_select');
      expect(one({ type: 'text', min: 1 })).to.equal('spec.params[0].min does not apply to a text parameter');
      expect(one({ type: 'select' })).to.contain('spec.params[0].options must be a non-empty list');
      expect(one({ type: 'select', options: ['a'], default: 'b' })).to.equal('spec.params[0].default "b" is not one of the options');
      expect(one({ type: 'number', required: true })).to.contain('spec.params[0].default is required for a required parameter');
      expect(one({ type: 'text', pattern: '(' })).to.contain('spec.params[0].pattern is not a valid regular expression');
      expect(one({ type: 'date', default: '2026-02-30' })).to.equal('spec.params[0].default "2026-02-30" is not a date (YYYY-MM-DD)');
      expect(message(() => parseDashboardSpec(spec('SELECT :a', [{ id: 'a-b', type: 'text' }])))).to.contain('spec.params[0].id "a-b" must be a letter');
      expect(one({ type: 'select', options: { query: 'nope' } })).to.contain('spec.params[0].options.query "nope" does not name a key');
    });

    it('an options query that itself takes a parameter', () => {
      const body = spec('SELECT :p', [{ id: 'p', type: 'select', options: { query: 'sales' } }]);
      expect(message(() => parseDashboardSpec(body))).to.contain('spec.params[0].options.query "sales" uses a parameter');
    });
  });

  describe('values from a query string', () => {
    it('keep the defaults when none is given', () => {
      const read = readParamValues(parsed(), pairs('theme=dark'), () => undefined);
      expect(read).to.include({ defaults: true });
      expect(read.notices).to.deep.equal([]);
      expect(read.values).to.deep.equal({ region: 'North', period: { from: '2026-01-01', to: '2026-03-31' }, min_total: 10 });
    });

    it('normalise the two ways of writing a range and numbers', () => {
      const a = readParamValues(parsed(), pairs('region=South&period=2026-02-01..2026-02-28&min_total=5.0'), () => undefined);
      const b = readParamValues(parsed(), pairs('min_total=5&period.from=2026-02-01&period.to=2026-02-28&region=South'), () => undefined);
      expect(a.defaults).to.equal(false);
      expect(a.key).to.equal(b.key);
      expect(valueText(a.values.period!)).to.equal('2026-02-01..2026-02-28');
    });

    it('refuse what does not fit with a notice naming the value, keeping that default', () => {
      const read = readParamValues(parsed(), pairs("region=West'; DROP TABLE x;--&period=2026-03-01..2026-01-01&min_total=1e9"), () => undefined);
      expect(read.values).to.deep.equal(defaultValues(parsed()));
      expect(read.notices).to.deep.equal([
        'Region: "West\'; DROP TABLE x;--" is not one of the options; showing the default',
        'period: "2026-03-01..2026-01-01" ends before it starts; showing the default',
        'min_total: "1e9" is not a number; showing the default',
      ]);
    });

    it('check a query-listed option against that query\'s rows when known', () => {
      const params = parseDashboardSpec(spec('SELECT :r', [{ id: 'r', type: 'select', options: { query: 'regions' } }], {
        data: { regions: [{ name: 'A' }] },
      })).params!;
      expect(readParamValues(params, pairs('r=B'), () => ['A']).notices).to.deep.equal(['r: "B" is not one of the options; showing the default']);
      expect(readParamValues(params, pairs('r=A'), () => ['A']).values).to.deep.equal({ r: 'A' });
    });

    it('apply a pattern to the whole text', () => {
      const params = parseDashboardSpec(spec('SELECT :q', [{ id: 'q', type: 'text', pattern: '[a-z]+' }])).params!;
      expect(readParamValues(params, pairs('q=abc'), () => undefined).values).to.deep.equal({ q: 'abc' });
      expect(readParamValues(params, pairs('q=abc1'), () => undefined).notices[0]).to.contain('does not match the pattern [a-z]+');
    });
  });
});
