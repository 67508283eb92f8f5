import { expect } from 'chai';
import { refusal } from '../support/refusal.js';
import { columnProblems, panelColumnRefs, parseDashboardSpec } from '../../domain/dashboard-spec.js';

const message = (fn: () => unknown) => refusal(fn).message;
const data = { kpis: [{ mrr: 18_250.5, prev_mrr: 17_000, churn: 0.021, prev_churn: 0.024 }] };
const parse = (panel: Record<string, unknown>) =>
  parseDashboardSpec({ title: 'T', data, panels: [{ id: 'p', type: 'stat', query: 'kpis', value: 'mrr', ...panel }] }).panels[0]!;

describe('domain: stat compare and sparkline (issue 34)', () => {
  it('reads compare as a column name or as { column, good }, good being up unless said', () => {
    expect(parse({ compare: 'prev_mrr' }).compare).to.deep.equal({ column: 'prev_mrr', good: 'up' });
    expect(parse({ value: 'churn', compare: { column: 'prev_churn', good: 'down' } }).compare).to.deep.equal({ column: 'prev_churn', good: 'down' });
    expect(parse({ compare: { column: 'prev_mrr' } }).compare).to.deep.equal({ column: 'prev_mrr', good: 'up' });
    expect(panelColumnRefs(parse({ compare: 'prev_mrr' }))).to.deep.equal([['value', 'mrr'], ['compare', 'prev_mrr']]);
  });

  it('refuses a malformed compare, naming the field', () => {
    expect(message(() => parse({ compare: 'nope' }))).to.equal(
      'spec.panels[0].compare "nope" is not a column of spec.data.kpis (columns: mrr, prev_mrr, churn, prev_churn)',
    );
    expect(message(() => parse({ compare: { column: 'prev_mrr', good: 'sideways' } }))).to.equal('spec.panels[0].compare.good must be "up" or "down" (got "sideways")');
    expect(message(() => parse({ compare: { column: 'prev_mrr', better: 'up' } }))).to.equal('spec.panels[0].compare has unknown key "better" (allowed: column, good)');
    expect(message(() => parse({ compare: { good: 'up' } }))).to.equal('spec.panels[0].compare.column must be a non-empty column name (got undefined)');
    expect(message(() => parse({ compare: 3 }))).to.equal(
      'spec.panels[0].compare must be a column name or { "column": "<column>", "good": "up" | "down" } (got number)',
    );
    expect(message(() => parse({ compare: 'prev_mrr', good: 'up' }))).to.equal(
      'spec.panels[0].good goes inside compare: { "column": "<previous value column>", "good": "up" | "down" }',
    );
    expect(message(() => parse({ compare: 'mrr' }))).to.equal('spec.panels[0].compare names the value column itself; it takes the column holding the previous value');
  });

  it('refuses compare on other panel types, and warns about a column a query does not return', () => {
    expect(message(() => parseDashboardSpec({ title: 'T', data, panels: [{ id: 'p', type: 'table', query: 'kpis', compare: 'prev_mrr' }] }))).to.equal(
      'spec.panels[0].compare does not apply to a table panel: only a stat panel compares its value with a previous one',
    );
    const spec = parseDashboardSpec({ title: 'T', queries: { q: { sql: 'select 1' } }, panels: [{ id: 's', type: 'stat', query: 'q', value: 'mrr', compare: 'prev' }] });
    expect(columnProblems(spec, { q: [{ mrr: 1 }] })).to.deep.equal(['panel "s": compare column "prev" is not in the result of "q" (columns: mrr)']);
  });

  it('reads sparkline as a column name, on stat panels only, checked like the value', () => {
    expect(parse({ sparkline: 'mrr', compare: 'prev_mrr' })).to.deep.include({ sparkline: 'mrr' });
    expect(panelColumnRefs(parse({ sparkline: 'churn' })).at(-1)).to.deep.equal(['sparkline', 'churn']);
    expect(message(() => parse({ sparkline: 'nope' }))).to.equal(
      'spec.panels[0].sparkline "nope" is not a column of spec.data.kpis (columns: mrr, prev_mrr, churn, prev_churn)',
    );
    expect(message(() => parse({ sparkline: ['mrr'] }))).to.equal('spec.panels[0].sparkline must be a non-empty column name (got array)');
    expect(message(() => parseDashboardSpec({ title: 'T', data, panels: [{ id: 'p', type: 'line', query: 'kpis', x: 'mrr', y: 'churn', sparkline: 'mrr' }] }))).to.equal(
      'spec.panels[0].sparkline does not apply to a line panel: only a stat panel draws a sparkline under its value',
    );
  });
});
