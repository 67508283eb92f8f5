import { expect } from 'chai';
import { refusal } from '../support/refusal.js';
import { panelColumnRefs, parseDashboardSpec } from '../../domain/dashboard-spec.js';

const message = (fn: () => unknown) => refusal(fn).message;
const data = { sales: [{ month: '2025-01', revenue: 10, orders: 3, region: 'EU', updated_at: '2025-01-01T10:00:00Z' }] };
const parse = (panel: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  parseDashboardSpec({ title: 'T', data, ...extra, panels: [{ id: 'p', query: 'sales', ...panel }] });
const line = { type: 'line', x: 'month', y: ['revenue', 'orders'] };

describe('domain: spec display fields (axis titles, y2, table columns, time zone)', () => {
  it('keeps axis titles, a second axis and table column labels', () => {
    expect(parse({ ...line, x_title: 'Month', y_title: 'Revenue (EUR)', y2: ['orders'] }).panels[0]).to.deep.equal({
      id: 'p', type: 'line', query: 'sales', x: 'month', y: ['revenue', 'orders'], x_title: 'Month', y_title: 'Revenue (EUR)', y2: ['orders'],
    });
    const table = parse({ type: 'table', columns: [{ id: 'region', label: 'Region' }, { id: 'updated_at' }] }).panels[0]!;
    expect(table.columns).to.deep.equal([{ id: 'region', label: 'Region' }, { id: 'updated_at', label: 'updated_at' }]);
    expect(panelColumnRefs(table)).to.deep.equal([['columns[0].id', 'region'], ['columns[1].id', 'updated_at']]);
    const formatted = parse({ type: 'table', columns: [{ id: 'revenue', label: 'Revenue', format: { type: 'currency', currency: 'eur', decimals: 0 } }, { id: 'orders', format: 'compact' }] }).panels[0]!;
    expect(formatted.columns).to.deep.equal([
      { id: 'revenue', label: 'Revenue', format: { type: 'currency', currency: 'EUR', decimals: 0 } },
      { id: 'orders', label: 'orders', format: { type: 'compact' } },
    ]);
    expect(parse({ type: 'scatter', x: 'revenue', y: 'orders', x_title: 'Revenue' }).panels[0]!.x_title).to.equal('Revenue');
  });

  it('keeps an IANA time zone and refuses anything else, naming it', () => {
    expect(parse({ type: 'table' }, { timezone: 'Europe/Paris' }).timezone).to.equal('Europe/Paris');
    expect(parse({ type: 'table' }).timezone).to.equal(undefined);
    expect(message(() => parse({ type: 'table' }, { timezone: 'Mars/Olympus' }))).to.equal(
      'spec.timezone must be an IANA time zone such as "UTC" or "Europe/Paris" (got "Mars/Olympus")',
    );
    expect(message(() => parse({ type: 'table' }, { timezone: 2 }))).to.equal('spec.timezone must be an IANA time zone such as "UTC" or "Europe/Paris" (got number)');
  });

  it('refuses a y2 that is not part of y, takes every y, repeats, or comes with series', () => {
    expect(message(() => parse({ ...line, y2: ['region'] }))).to.equal('spec.panels[0].y2[0] "region" must also be listed in y (y: revenue, orders)');
    expect(message(() => parse({ ...line, y2: ['orders', 'revenue'] }))).to.equal('spec.panels[0].y2 must leave at least one column of y on the left axis');
    expect(message(() => parse({ ...line, y2: ['orders', 'orders'] }))).to.equal('spec.panels[0].y2 lists column "orders" twice');
    expect(message(() => parse({ ...line, y2: 'orders' }))).to.equal('spec.panels[0].y2 must be a non-empty list of column names from y (got "orders")');
    expect(message(() => parse({ type: 'bar', x: 'month', y: 'revenue', series: 'region', y2: ['revenue'] }))).to.equal(
      'spec.panels[0].y2 does not apply when series is set: every series shares the one y column',
    );
  });

  it('refuses display fields on panel types they do not apply to, saying what to use', () => {
    expect(message(() => parse({ type: 'pie', x: 'region', y: 'revenue', x_title: 'Region' }))).to.equal(
      'spec.panels[0].x_title does not apply to a pie panel: a pie panel takes `x` (slice labels) and `y` (slice sizes), not `x_title`',
    );
    expect(message(() => parse({ type: 'scatter', x: 'revenue', y: ['orders', 'revenue'], y2: ['revenue'] }))).to.equal(
      'spec.panels[0].y2 does not apply to a scatter panel: a scatter panel has one value axis',
    );
    expect(message(() => parse({ ...line, columns: [{ id: 'month' }] }))).to.equal(
      'spec.panels[0].columns does not apply to a line panel: a line panel draws `x` and `y`; `columns` labels a table\'s headers',
    );
    expect(message(() => parse({ type: 'table', y_title: 'x' }))).to.equal(
      'spec.panels[0].y_title does not apply to a table panel: a table panel takes `query` and optionally `columns` ([{ id, label, format }])',
    );
  });

  it('refuses malformed table columns and labels by field', () => {
    expect(message(() => parse({ type: 'table', columns: [] }))).to.equal('spec.panels[0].columns must be a non-empty list of { "id": "<column>", "label": "<header>" } (got array)');
    expect(message(() => parse({ type: 'table', columns: ['region'] }))).to.equal('spec.panels[0].columns[0] must be an object { "id": "<column>", "label": "<header>" } (got "region")');
    expect(message(() => parse({ type: 'table', columns: [{ id: 'region', width: 3 }] }))).to.equal('spec.panels[0].columns[0] has unknown key "width" (allowed: id, label, format)');
    expect(message(() => parse({ type: 'table', columns: [{ id: 'region' }, { id: 'revenue', format: 'money' }] }))).to.equal(
      'spec.panels[0].columns[1].format must be one of number, percent, currency, bytes, duration, compact (got "money")',
    );
    expect(message(() => parse({ type: 'table', columns: [{ id: 'revenue', format: { type: 'currency' } }] }))).to.equal(
      'spec.panels[0].columns[0].format.currency must be a three-letter ISO 4217 code such as "EUR" for a currency format (got undefined)',
    );
    expect(message(() => parse({ type: 'table', columns: [{ id: 'region' }, { id: 'region' }] }))).to.equal('spec.panels[0].columns lists column "region" twice');
    expect(message(() => parse({ type: 'table', columns: [{ id: 'nope' }] }))).to.equal(
      'spec.panels[0].columns[0].id "nope" is not a column of spec.data.sales (columns: month, revenue, orders, region, updated_at)',
    );
    expect(message(() => parse({ ...line, x_title: 'x'.repeat(201) }))).to.equal('spec.panels[0].x_title is 201 characters, over the 200-character limit');
    expect(message(() => parse({ ...line, y_title: 5 }))).to.equal('spec.panels[0].y_title must be a string (got number)');
  });
});
