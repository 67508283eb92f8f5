import { expect } from 'chai';
import { refusal } from '../support/refusal.js';
import {
  columnProblems,
  isRefreshable,
  isRefreshableSpec,
  MAX_PANELS,
  panelWidth,
  parseDashboardSpec,
  queryIds,
  utf8ByteLength,
  yColumns,
  type DashboardSpec,
} from '../../domain/dashboard-spec.js';

const message = (fn: () => unknown) => refusal(fn).message;

/** A minimal valid spec to break one field at a time. */
const base = (): Record<string, any> => ({
  title: 'Sales',
  data: { sales: [{ month: '2025-01', total: 10, region: 'EU' }] },
  panels: [{ id: 'trend', type: 'line', query: 'sales', x: 'month', y: 'total' }],
});
const withPanel = (panel: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ ...base(), ...extra, panels: [panel] });

describe('domain: dashboard spec', () => {
  describe('accepts', () => {
    it('a spec object and returns a clean copy', () => {
      const spec = parseDashboardSpec(base());
      expect(spec).to.deep.equal(base());
    });

    it('the same spec as a JSON string', () => {
      expect(parseDashboardSpec(JSON.stringify(base()))).to.deep.equal(base());
    });

    it('every panel type with its fields', () => {
      const spec = parseDashboardSpec({
        title: 'All',
        description: 'Everything',
        queries: { q: { sql: 'select 1' } },
        data: { d: [{ a: 'x', b: 1, c: 2, s: 'k', ok: true, n: null }] },
        panels: [
          { id: 'l', type: 'line', query: 'd', x: 'a', y: ['b', 'c'], title: 'L', width: 12 },
          { id: 'b', type: 'bar', query: 'd', x: 'a', y: 'b', series: 's' },
          { id: 'ar', type: 'area', query: 'q', x: 'a', y: ['b'] },
          { id: 'p', type: 'pie', query: 'd', x: 'a', y: 'b' },
          { id: 'sc', type: 'scatter', query: 'd', x: 'b', y: 'c' },
          { id: 't', type: 'table', query: 'q' },
          { id: 'st', type: 'stat', query: 'd', value: 'b' },
          { id: 'tx', type: 'text', text: '# Hello' },
        ],
      });
      expect(spec.panels.map((p) => p.type)).to.deep.equal(['line', 'bar', 'area', 'pie', 'scatter', 'table', 'stat', 'text']);
      expect(spec.description).to.equal('Everything');
    });

    it('null on optional fields as absent, dropping them from the result', () => {
      const spec = parseDashboardSpec({
        ...base(),
        description: null,
        queries: null,
        panels: [{ id: 'trend', type: 'line', query: 'sales', x: 'month', y: 'total', title: null, width: null, series: null }],
      });
      expect(spec).to.deep.equal(base());
    });

    it('panels over query ids that have no rows yet (columns unknown until the SQL runs)', () => {
      const spec = parseDashboardSpec({ title: 'Q', queries: { q: { sql: 'select 1' } }, panels: [{ id: 'a', type: 'line', query: 'q', x: 'anything', y: 'else' }] });
      expect(spec.panels[0]!.x).to.equal('anything');
    });

    it('inline data with an empty row list, without checking its columns', () => {
      expect(() => parseDashboardSpec({ title: 'E', data: { d: [] }, panels: [{ id: 'a', type: 'bar', query: 'd', x: 'x', y: 'y' }] })).not.to.throw();
    });

    it('widths 1 and 12', () => {
      expect(parseDashboardSpec(withPanel({ id: 'a', type: 'text', text: 'x', width: 1 })).panels[0]!.width).to.equal(1);
      expect(parseDashboardSpec(withPanel({ id: 'a', type: 'text', text: 'x', width: 12 })).panels[0]!.width).to.equal(12);
    });
  });

  describe('refuses the spec as a whole', () => {
    it('when it is not an object', () => {
      expect(message(() => parseDashboardSpec(42))).to.equal('spec must be an object or a JSON string of one (got number)');
      expect(message(() => parseDashboardSpec(null))).to.equal('spec must be an object or a JSON string of one (got null)');
      expect(message(() => parseDashboardSpec([base()]))).to.equal('spec must be an object or a JSON string of one (got array)');
      expect(message(() => parseDashboardSpec('[1]'))).to.equal('spec must be an object or a JSON string of one (got array)');
    });

    it('when the string is not JSON', () => {
      const text = message(() => parseDashboardSpec('{"title": '));
      expect(text).to.match(/^spec is not valid JSON: /);
      expect(refusal(() => parseDashboardSpec('{')).code).to.equal('invalid_argument');
    });

    it('over the 5242880-byte cap, counting UTF-8 bytes, as a string or as an object', () => {
      const filler = 'é'.repeat(2_700_000); // 2.7M characters, 5.4 MB
      const asObject = { ...base(), description: filler };
      const json = JSON.stringify(asObject);
      const err = refusal(() => parseDashboardSpec(json));
      expect(err.code).to.equal('payload_too_large');
      expect(err.message).to.equal(
        `spec is ${utf8ByteLength(json)} bytes, over the 5242880-byte limit. Move inline data into queries, or trim rows and panels, and publish again.`,
      );
      expect(refusal(() => parseDashboardSpec(asObject)).message).to.equal(err.message);
    });

    it('unknown top-level keys, by name', () => {
      expect(message(() => parseDashboardSpec({ ...base(), theme: 'dark' }))).to.equal(
        'spec has unknown key "theme" (allowed: title, description, queries, data, params, panels, alerts, timezone)',
      );
    });

    it('a missing, empty or non-string title', () => {
      const { title: _, ...untitled } = base();
      expect(message(() => parseDashboardSpec(untitled))).to.equal('spec.title must be a non-empty string');
      expect(message(() => parseDashboardSpec({ ...base(), title: '  ' }))).to.equal('spec.title must be a non-empty string');
      expect(message(() => parseDashboardSpec({ ...base(), title: 7 }))).to.equal('spec.title must be a non-empty string (got number)');
    });

    it('a non-string description', () => {
      expect(message(() => parseDashboardSpec({ ...base(), description: ['x'] }))).to.equal('spec.description must be a string (got array)');
    });

    it('missing, empty or non-array panels', () => {
      const { panels: _, ...bare } = base();
      expect(message(() => parseDashboardSpec(bare))).to.equal('spec.panels must be a non-empty array of panels');
      expect(message(() => parseDashboardSpec({ ...base(), panels: [] }))).to.equal('spec.panels must be a non-empty array of panels');
      expect(message(() => parseDashboardSpec({ ...base(), panels: {} }))).to.equal('spec.panels must be a non-empty array of panels (got object)');
    });

    it(`more than ${MAX_PANELS} panels`, () => {
      const panels = Array.from({ length: MAX_PANELS + 1 }, (_, i) => ({ id: `p${i}`, type: 'text', text: 'x' }));
      expect(message(() => parseDashboardSpec({ title: 'T', panels }))).to.equal('spec.panels has 51 panels, over the limit of 50');
    });
  });

  describe('refuses queries and data', () => {
    it('queries that are not an object of { sql }', () => {
      expect(message(() => parseDashboardSpec({ ...base(), queries: [] }))).to.equal(
        'spec.queries must be an object of { "<id>": { "sql": "..." } } (got array)',
      );
      expect(message(() => parseDashboardSpec({ ...base(), queries: { q: 'select 1' } }))).to.equal('spec.queries.q must be an object with "sql" (got string)');
      expect(message(() => parseDashboardSpec({ ...base(), queries: { q: {} } }))).to.equal('spec.queries.q.sql must be a non-empty string');
      expect(message(() => parseDashboardSpec({ ...base(), queries: { q: { sql: ' ' } } }))).to.equal('spec.queries.q.sql must be a non-empty string');
      expect(message(() => parseDashboardSpec({ ...base(), queries: { q: { sql: 'select 1', params: [] } } }))).to.equal(
        'spec.queries.q has unknown key "params" (allowed: sql)',
      );
      expect(message(() => parseDashboardSpec({ ...base(), queries: {} }))).to.equal('spec.queries must define at least one query when given');
    });

    it('ids outside [A-Za-z0-9_-] or the reserved __proto__', () => {
      expect(message(() => parseDashboardSpec({ ...base(), queries: { 'my query': { sql: 'select 1' } } }))).to.equal(
        'spec.queries key "my query" must match [A-Za-z0-9_-] (1 to 64 characters)',
      );
      expect(message(() => parseDashboardSpec({ ...base(), data: { ['x'.repeat(65)]: [] } }))).to.equal(
        `spec.data key "${'x'.repeat(65)}" must match [A-Za-z0-9_-] (1 to 64 characters)`,
      );
      expect(message(() => parseDashboardSpec('{"title":"T","data":{"__proto__":[]},"panels":[{"id":"t","type":"text","text":"x"}]}'))).to.equal(
        'spec.data key "__proto__" is reserved',
      );
    });

    it('an id used for both a query and inline data', () => {
      expect(message(() => parseDashboardSpec({ ...base(), queries: { sales: { sql: 'select 1' } } }))).to.equal(
        'spec.data.sales is also defined in spec.queries; an id names either a query or inline data, not both',
      );
    });

    it('data that is not arrays of flat row objects', () => {
      expect(message(() => parseDashboardSpec({ ...base(), data: [] }))).to.equal('spec.data must be an object of { "<id>": [rows] } (got array)');
      expect(message(() => parseDashboardSpec({ ...base(), data: { sales: { a: 1 } } }))).to.equal(
        'spec.data.sales must be an array of row objects (got object)',
      );
      expect(message(() => parseDashboardSpec({ ...base(), data: { sales: [{ a: 1 }, [1, 2]] } }))).to.equal(
        'spec.data.sales[1] must be an object of column values (got array)',
      );
      expect(message(() => parseDashboardSpec({ ...base(), data: { sales: [{ a: 1 }, { a: 2, meta: { deep: true } }] } }))).to.equal(
        'spec.data.sales[1].meta must be a string, number, boolean or null (got object)',
      );
      expect(message(() => parseDashboardSpec({ ...base(), data: { sales: [{ 'unit price': [1] }] } }))).to.equal(
        'spec.data.sales[0]["unit price"] must be a string, number, boolean or null (got array)',
      );
    });
  });

  describe('refuses panels, naming the exact field', () => {
    it('duplicate panel ids, naming both places', () => {
      const panels = [base().panels[0], { id: 'other', type: 'text', text: 'x' }, base().panels[0]];
      expect(message(() => parseDashboardSpec({ ...base(), panels }))).to.equal(
        'spec.panels[2].id "trend" is already used by spec.panels[0]; panel ids must be unique',
      );
    });

    it('an unknown panel type', () => {
      const three = [
        { id: 'a', type: 'text', text: 'x' },
        { id: 'b', type: 'text', text: 'y' },
        { id: 'c', type: 'donut' },
      ];
      expect(message(() => parseDashboardSpec({ title: 'T', panels: three }))).to.equal(
        'spec.panels[2].type must be one of line, bar, area, pie, scatter, table, stat, text (got "donut")',
      );
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 3 })))).to.equal(
        'spec.panels[0].type must be one of line, bar, area, pie, scatter, table, stat, text (got number)',
      );
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a' })))).to.equal(
        'spec.panels[0].type is required: one of line, bar, area, pie, scatter, table, stat, text',
      );
    });

    it('a panel that is not an object', () => {
      expect(message(() => parseDashboardSpec({ title: 'T', panels: ['chart'] }))).to.equal('spec.panels[0] must be an object (got string)');
    });

    it('unknown panel keys, by name', () => {
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'text', text: 'x', colour: 'red' })))).to.equal(
        'spec.panels[0] has unknown key "colour" (allowed: id, type, title, query, x, y, series, value, text, width, x_title, y_title, y2, columns, format, compare, sparkline)',
      );
    });

    it('missing or malformed ids', () => {
      expect(message(() => parseDashboardSpec(withPanel({ type: 'text', text: 'x' })))).to.equal('spec.panels[0].id is required');
      expect(message(() => parseDashboardSpec(withPanel({ id: 5, type: 'text', text: 'x' })))).to.equal('spec.panels[0].id must be a string (got number)');
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a b', type: 'text', text: 'x' })))).to.equal(
        'spec.panels[0].id "a b" must match [A-Za-z0-9_-] (1 to 64 characters)',
      );
    });

    it('fields each type requires', () => {
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'text' })))).to.equal('spec.panels[0].text is required for a text panel');
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'text', text: '' })))).to.equal('spec.panels[0].text must be a non-empty string');
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'line', query: 'sales', y: 'total' })))).to.equal(
        'spec.panels[0].x is required for a line panel',
      );
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'bar', query: 'sales', x: 'month' })))).to.equal(
        'spec.panels[0].y is required for a bar panel',
      );
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'pie', x: 'month', y: 'total' })))).to.equal(
        'spec.panels[0].query is required for a pie panel',
      );
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'stat', query: 'sales' })))).to.equal(
        'spec.panels[0].value is required for a stat panel',
      );
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'table' })))).to.equal('spec.panels[0].query is required for a table panel');
    });

    it('fields that do not apply to the type', () => {
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'text', text: 'x', query: 'sales' })))).to.equal(
        'spec.panels[0].query does not apply to a text panel: a text panel takes only `text` (markdown)',
      );
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'table', query: 'sales', x: 'month' })))).to.equal(
        'spec.panels[0].x does not apply to a table panel: a table panel takes `query` and optionally `columns` ([{ id, label, format }])',
      );
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'pie', query: 'sales', x: 'month', y: 'total', series: 'region' })))).to.equal(
        'spec.panels[0].series does not apply to a pie panel: a pie panel takes `x` (slice labels) and `y` (slice sizes), not `series`',
      );
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'line', query: 'sales', x: 'month', y: 'total', value: 'total' })))).to.equal(
        'spec.panels[0].value does not apply to a line panel: a line panel takes `y`, not `value`',
      );
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'stat', query: 'sales', value: 'total', y: 'total' })))).to.equal(
        'spec.panels[0].y does not apply to a stat panel: a stat panel takes `value`, not `y`',
      );
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'bar', query: 'sales', x: 'month', y: 'total', text: 'note' })))).to.equal(
        'spec.panels[0].text does not apply to a bar panel: prose goes in a panel of type text',
      );
    });

    it('a query that names neither a query nor a data set', () => {
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'table', query: 'salse' }, { queries: { live: { sql: 'select 1' } } })))).to.equal(
        'spec.panels[0].query "salse" does not name a key of spec.queries or spec.data (known: live, sales)',
      );
      expect(message(() => parseDashboardSpec({ title: 'T', panels: [{ id: 'a', type: 'table', query: 'x' }] }))).to.equal(
        'spec.panels[0].query "x" does not name a key of spec.queries or spec.data (the spec defines no queries or data)',
      );
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'table', query: 'constructor' })))).to.equal(
        'spec.panels[0].query "constructor" does not name a key of spec.queries or spec.data (known: sales)',
      );
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'table', query: 1 })))).to.equal('spec.panels[0].query must be a string (got number)');
    });

    it('columns that inline data does not have', () => {
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'line', query: 'sales', x: 'month', y: ['total', 'totl'] })))).to.equal(
        'spec.panels[0].y[1] "totl" is not a column of spec.data.sales (columns: month, total, region)',
      );
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'stat', query: 'sales', value: 'sum' })))).to.equal(
        'spec.panels[0].value "sum" is not a column of spec.data.sales (columns: month, total, region)',
      );
    });

    it('malformed x, y, series and value', () => {
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'line', query: 'sales', x: 1, y: 'total' })))).to.equal(
        'spec.panels[0].x must be a non-empty column name (got number)',
      );
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'line', query: 'sales', x: 'month', y: [] })))).to.equal(
        'spec.panels[0].y must be a column name or a non-empty list of column names (got array)',
      );
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'line', query: 'sales', x: 'month', y: ['total', 2] })))).to.equal(
        'spec.panels[0].y[1] must be a non-empty column name (got number)',
      );
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'line', query: 'sales', x: 'month', y: ['total', 'total'] })))).to.equal(
        'spec.panels[0].y lists column "total" twice',
      );
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'stat', query: 'sales', value: '' })))).to.equal(
        'spec.panels[0].value must be a non-empty column name (got "")',
      );
    });

    it('several y columns where only one makes sense', () => {
      const sales = [{ m: 1, a: 1, b: 2, s: 'x' }];
      expect(message(() => parseDashboardSpec({ title: 'T', data: { sales }, panels: [{ id: 'p', type: 'pie', query: 'sales', x: 'm', y: ['a', 'b'] }] }))).to.equal(
        'spec.panels[0].y must be a single column name for a pie panel',
      );
      expect(
        message(() => parseDashboardSpec({ title: 'T', data: { sales }, panels: [{ id: 'p', type: 'bar', query: 'sales', x: 'm', y: ['a', 'b'], series: 's' }] })),
      ).to.equal('spec.panels[0].y must be a single column name when series is set');
      expect(
        parseDashboardSpec({ title: 'T', data: { sales }, panels: [{ id: 'p', type: 'bar', query: 'sales', x: 'm', y: ['a'], series: 's' }] }).panels[0]!.y,
      ).to.deep.equal(['a']);
    });

    it('a width outside 1–12 or not an integer', () => {
      for (const width of [0, 13, 2.5, -1]) {
        expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'text', text: 'x', width })))).to.equal(
          `spec.panels[0].width must be an integer from 1 to 12 (got ${width})`,
        );
      }
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'text', text: 'x', width: '6' })))).to.equal(
        'spec.panels[0].width must be an integer from 1 to 12 (got "6")',
      );
    });

    it('a non-string title and an oversized text', () => {
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'text', text: 'x', title: 1 })))).to.equal('spec.panels[0].title must be a string (got number)');
      expect(message(() => parseDashboardSpec(withPanel({ id: 'a', type: 'text', text: 'x'.repeat(20_001) })))).to.equal(
        'spec.panels[0].text is 20001 characters, over the 20000-character limit',
      );
    });

    it('with the invalid_argument code', () => {
      expect(refusal(() => parseDashboardSpec(withPanel({ id: 'a', type: 'donut' }))).code).to.equal('invalid_argument');
    });
  });

  describe('helpers', () => {
    const spec = (): DashboardSpec =>
      parseDashboardSpec({
        title: 'T',
        queries: { a: { sql: 'select 1' }, b: { sql: 'select 2' } },
        data: { c: [{ x: 1, y: 2 }] },
        panels: [
          { id: 'p1', type: 'line', query: 'a', x: 'day', y: ['n', 'm'] },
          { id: 'p2', type: 'stat', query: 'b', value: 'total' },
          { id: 'p3', type: 'text', text: 'hi' },
          { id: 'p4', type: 'table', query: 'c' },
          { id: 'p5', type: 'bar', query: 'c', x: 'x', y: 'y', width: 4 },
        ],
      });

    it('isRefreshable and queryIds follow the queries', () => {
      expect(isRefreshable(spec())).to.equal(true);
      expect(queryIds(spec())).to.deep.equal(['a', 'b']);
      const staticSpec = parseDashboardSpec(base());
      expect(isRefreshable(staticSpec)).to.equal(false);
      expect(queryIds(staticSpec)).to.deep.equal([]);
    });

    it('isRefreshableSpec reads a stored spec: refreshable only with a non-empty queries object', () => {
      expect(isRefreshableSpec({ queries: { a: { sql: 'SELECT 1' } } })).to.equal(true);
      for (const stored of [null, 'text', {}, { queries: null }, { queries: {} }, { queries: 'a' }]) {
        expect(isRefreshableSpec(stored), JSON.stringify(stored)).to.equal(false);
      }
    });

    it('yColumns lists y whichever form it was given in', () => {
      const [p1, p2, , , p5] = spec().panels;
      expect(yColumns(p1!)).to.deep.equal(['n', 'm']);
      expect(yColumns(p5!)).to.deep.equal(['y']);
      expect(yColumns(p2!)).to.deep.equal([]);
    });

    it('panelWidth honours width and defaults by type', () => {
      expect(spec().panels.map(panelWidth)).to.deep.equal([6, 3, 12, 12, 4]);
    });

    it('columnProblems names the columns query results lack, per panel', () => {
      const problems = columnProblems(spec(), { a: [{ day: '2025-01-01', n: 1 }], b: [] });
      expect(problems).to.deep.equal(['panel "p1": y[1] column "m" is not in the result of "a" (columns: day, n)']);
      expect(columnProblems(spec(), { a: [{ day: 1, n: 1, m: 2 }], b: [{ total: 3 }] })).to.deep.equal([]);
    });

    it('utf8ByteLength counts like Buffer.byteLength', () => {
      for (const text of ['', 'abc', 'é', '€', '😀', 'a😀é€', '\ud800x']) {
        expect(utf8ByteLength(text), JSON.stringify(text)).to.equal(Buffer.byteLength(text, 'utf8'));
      }
    });
  });
});
