import { expect } from 'chai';
import { parseDashboardSpec, utf8ByteLength } from '../../domain/dashboard-spec.js';
import { lastRunOf, summarizeSpec } from '../../domain/spec-summary.js';

const spec = () =>
  parseDashboardSpec({
    title: 'Sales',
    queries: { orders: { sql: '  select month, total\n  from orders\n' }, fresh: { sql: `select ${'x'.repeat(300)}` } },
    data: { regions: [{ region: 'EU', total: 3 }, { region: 'US', total: 4, note: 'n' }] },
    panels: [
      { id: 'trend', type: 'line', title: 'Trend', query: 'orders', x: 'month', y: 'total' },
      { id: 'note', type: 'text', text: 'hello' },
    ],
  });

describe('domain: spec summary', () => {
  it('outlines panels, queries with their first line and last run, inline data, and the size, without rows', () => {
    const summary = summarizeSpec(spec(), { orders: { columns: ['month', 'total'], rows: 12 } });
    expect(summary).to.deep.equal({
      title: 'Sales',
      description: null,
      bytes: utf8ByteLength(JSON.stringify(spec())),
      panels: [
        { id: 'trend', type: 'line', title: 'Trend', query: 'orders' },
        { id: 'note', type: 'text', title: null, query: null },
      ],
      queries: [
        { id: 'orders', sql_first_line: 'select month, total', sql_lines: 2, columns: ['month', 'total'], rows: 12 },
        { id: 'fresh', sql_first_line: `select ${'x'.repeat(193)}…`, sql_lines: 1, columns: null, rows: null },
      ],
      data: [{ id: 'regions', columns: ['region', 'total', 'note'], rows: 2 }],
      params: [],
      alerts: [],
    });
    expect(JSON.stringify(summary)).to.not.contain('EU');
  });

  it('lists params and alerts as the spec declares them', () => {
    const low = { id: 'low', query: 'regions', column: 'total', row: 'last' as const, when: { '<': 1 }, message: 'Low' };
    const withLists = { ...spec(), params: [{ id: 'region', type: 'text' as const }], alerts: [low] };
    const summary = summarizeSpec(withLists, {});
    expect(summary.params).to.deep.equal([{ id: 'region', type: 'text' }]);
    expect(summary.alerts).to.deep.equal([low]);
  });

  it('reads the columns and row counts of a rendered data.json, and nothing from anything else', () => {
    expect(lastRunOf({ renderedAt: 'x', data: { orders: [{ a: 1 }, { b: 2 }], bad: 3 } })).to.deep.equal({ orders: { columns: ['a', 'b'], rows: 2 } });
    expect(lastRunOf(JSON.parse('{"data":{"__proto__":[{"a":1}]}}'))).to.deep.equal({});
    for (const junk of [null, 3, [], { data: [] }, { data: null }]) expect(lastRunOf(junk)).to.deep.equal({});
  });
});
