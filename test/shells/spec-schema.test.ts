import { expect } from 'chai';
import { Ajv } from 'ajv';
import { parseDashboardSpec, PANEL_TYPES } from '../../domain/dashboard-spec.js';
import { declareInput } from '../../shells/koa/mcp/tools/arguments.js';
import { PublishInput } from '../../shells/koa/mcp/tools/dashboard-inputs.js';

/** A spec using every panel type and every field, as an AI client would write it. */
const everyPanel = () => ({
  title: 'Sales',
  description: 'By month and region',
  timezone: 'Europe/Paris',
  queries: { live: { sql: 'SELECT :region AS region, :period.from AS since, :period.to AS until, :top AS top, :day AS day, :tags AS tags, :name AS name' } },
  params: [
    { id: 'region', type: 'select', label: 'Region', default: 'North', options: ['North', 'South'] },
    { id: 'period', type: 'date_range', default: { from: '2026-01-01', to: '2026-03-31' } },
    { id: 'top', type: 'number', min: 1, max: 100, default: 10, required: true },
    { id: 'day', type: 'date' },
    { id: 'tags', type: 'multi_select', options: { query: 'sales' } },
    { id: 'name', type: 'text', pattern: '[a-z]+' },
  ],
  data: { sales: [{ month: '2026-01', region: 'North', total: 10, share: 0.5 }] },
  panels: [
    { id: 'line', type: 'line', title: 'Trend', query: 'sales', x: 'month', y: ['total', 'share'], width: 6, x_title: 'Month', y_title: 'Total', y2: ['share'] },
    { id: 'bar', type: 'bar', query: 'sales', x: 'region', y: 'total', series: 'month', format: 'compact' },
    { id: 'area', type: 'area', query: 'sales', x: 'month', y: 'total' },
    { id: 'pie', type: 'pie', query: 'sales', x: 'region', y: 'total' },
    { id: 'scatter', type: 'scatter', query: 'sales', x: 'share', y: 'total' },
    { id: 'table', type: 'table', query: 'live', columns: [{ id: 'region', label: 'Region' }, { id: 'top', label: 'Top', format: { type: 'number', decimals: 0 } }, { id: 'n', format: 'bytes' }] },
    { id: 'stat', type: 'stat', query: 'sales', value: 'total', width: 3, format: { type: 'currency', currency: 'EUR', decimals: 0, suffix: ' net' }, compare: { column: 'share', good: 'down' }, sparkline: 'total' },
    { id: 'text', type: 'text', text: '**Note**' },
  ],
  alerts: [
    { id: 'high', query: 'live', column: 'n', row: 'any', when: { '>=': 100 }, message: 'High' },
    { id: 'north', query: 'sales', column: 'region', when: { '!=': 'North' }, message: 'Not north' },
    { id: 'moved', query: 'sales', column: 'total', row: 'first', when: 'changes', message: 'Moved' },
  ],
});

describe('publish_dashboard spec schema', () => {
  const specSchema = declareInput(PublishInput).inputSchema.properties as Record<string, Record<string, unknown>>;
  const validate = new Ajv({ strict: false }).compile(specSchema.spec!);
  const domainAccepts = (spec: unknown) => {
    try {
      parseDashboardSpec(spec);
      return true;
    } catch {
      return false;
    }
  };

  it('describes every panel type with the fields the parser takes for it', () => {
    const panels = (specSchema.spec!.properties as { panels: { items: { oneOf: Array<{ properties: { type: { const: string } } }> } } }).panels;
    expect(panels.items.oneOf.map((p) => p.properties.type.const)).to.deep.equal([...PANEL_TYPES]);
    expect(domainAccepts(everyPanel())).to.equal(true);
    expect(validate(everyPanel()), JSON.stringify(validate.errors)).to.equal(true);
  });

  it('still takes the spec as a JSON string', () => {
    expect(validate(JSON.stringify(everyPanel()))).to.equal(true);
  });

  const wrong: Array<[string, (spec: ReturnType<typeof everyPanel>) => void]> = [
    ['a stat panel with y', (s) => Object.assign(s.panels[6]!, { y: 'total' })],
    ['a table panel with x', (s) => Object.assign(s.panels[5]!, { x: 'month' })],
    ['a line panel without y', (s) => delete (s.panels[0] as { y?: unknown }).y],
    ['an unknown panel type', (s) => Object.assign(s.panels[1]!, { type: 'donut' })],
    ['an unknown top-level key', (s) => Object.assign(s, { layout: 'grid' })],
    ['a width of 13', (s) => Object.assign(s.panels[0]!, { width: 13 })],
    ['a pie panel with x_title', (s) => Object.assign(s.panels[3]!, { x_title: 'Region' })],
    ['a table column with an unknown key', (s) => Object.assign(s.panels[5]!, { columns: [{ id: 'n', width: 3 }] })],
    ['no panels', (s) => (s.panels.length = 0)],
    ['a query without sql', (s) => Object.assign(s.queries.live, { sql: undefined })],
    ['a compare with an unknown direction', (s) => Object.assign(s.panels[6]!, { compare: { column: 'share', good: 'sideways' } })],
    ['a sparkline that is not a column name', (s) => Object.assign(s.panels[6]!, { sparkline: ['total'] })],
    ['a compare on a bar panel', (s) => Object.assign(s.panels[1]!, { compare: 'total' })],
    ['a table column format of an unknown type', (s) => Object.assign(s.panels[5]!, { columns: [{ id: 'n', format: 'money' }] })],
    ['a format of an unknown type', (s) => Object.assign(s.panels[1]!, { format: 'money' })],
    ['a number parameter with options', (s) => Object.assign(s.params[2]!, { options: ['1'] })],
    ['a select parameter without options', (s) => delete (s.params[0] as { options?: unknown }).options],
    ['a parameter of an unknown type', (s) => Object.assign(s.params[3]!, { type: 'time' })],
    ['an alert with two operators', (s) => Object.assign(s.alerts[0]!, { when: { '>': 1, '<': 5 } })],
    ['an alert comparing a string with >', (s) => Object.assign(s.alerts[0]!, { when: { '>': '100' } })],
    ['an alert without a message', (s) => delete (s.alerts[1] as { message?: unknown }).message],
    ['an alert on an unknown row', (s) => Object.assign(s.alerts[0]!, { row: 'middle' })],
  ];
  for (const [name, spoil] of wrong) {
    it(`is refused by the schema and by the parser alike: ${name}`, () => {
      const spec = everyPanel();
      spoil(spec);
      const plain = JSON.parse(JSON.stringify(spec));
      expect(validate(plain), 'schema').to.equal(false);
      expect(domainAccepts(plain), 'parser').to.equal(false);
    });
  }
});
