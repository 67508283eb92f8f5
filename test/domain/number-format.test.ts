import { expect } from 'chai';
import { refusal } from '../support/refusal.js';
import { parseDashboardSpec } from '../../domain/dashboard-spec.js';
import { formatWith, parseNumberFormat } from '../../domain/number-format.js';

const where = 'spec.panels[0].format';
const message = (value: unknown) => refusal(() => parseNumberFormat(value, where)).message;

describe('domain: panel number formats (issue 34)', () => {
  it('reads a format by name or as an object, and formats each type', () => {
    const cases: Array<[unknown, number, string]> = [
      ['number', 1234.567, '1,234.57'],
      [{ type: 'number', decimals: 0, prefix: '~', suffix: ' users' }, 1234.567, '~1,235 users'],
      ['percent', 0.0213, '2.1%'],
      [{ type: 'percent', decimals: 2 }, 0.5, '50.00%'],
      [{ type: 'currency', currency: 'eur' }, 18250.5, '€18,250.50'],
      [{ type: 'currency', currency: 'USD', decimals: 0 }, 18250.5, '$18,251'],
      ['bytes', 512, '512 B'],
      ['bytes', 1536, '1.5 KiB'],
      [{ type: 'bytes', decimals: 2 }, 5 * 1024 ** 3, '5.00 GiB'],
      ['duration', 0.25, '250 ms'],
      ['duration', 42.4, '42s'],
      ['duration', 3725, '1h 2m'],
      ['duration', 200_000, '2d 7h'],
      ['duration', -90, '-1m 30s'],
      ['compact', 18_250, '18.3K'],
      ['compact', 2_500_000, '2.5M'],
    ];
    for (const [format, value, text] of cases) expect(formatWith(parseNumberFormat(format, where), value), JSON.stringify(format)).to.equal(text);
    expect(formatWith(parseNumberFormat('percent', where), Number.NaN)).to.equal('NaN');
  });

  it('refuses a wrong format with a sentence naming the field', () => {
    expect(message('money')).to.equal(`${where} must be one of number, percent, currency, bytes, duration, compact (got "money")`);
    expect(message({})).to.equal(`${where}.type is required: one of number, percent, currency, bytes, duration, compact`);
    expect(message({ type: 7 })).to.equal(`${where}.type must be one of number, percent, currency, bytes, duration, compact (got number)`);
    expect(message(3)).to.equal(`${where} must be a format name or an object (got number)`);
    expect(message({ type: 'currency' })).to.equal(`${where}.currency must be a three-letter ISO 4217 code such as "EUR" for a currency format (got undefined)`);
    expect(message({ type: 'currency', currency: 'EURO' })).to.contain('three-letter ISO 4217 code');
    expect(message({ type: 'percent', currency: 'EUR' })).to.equal(`${where}.currency applies only to the currency format`);
    expect(message({ type: 'number', decimals: 7 })).to.equal(`${where}.decimals must be an integer from 0 to 6 (got 7)`);
    expect(message({ type: 'number', decimals: 1.5 })).to.equal(`${where}.decimals must be an integer from 0 to 6 (got 1.5)`);
    expect(message({ type: 'number', prefix: 'x'.repeat(17) })).to.equal(`${where}.prefix is 17 characters, over the 16-character limit`);
    expect(message({ type: 'number', colour: 'red' })).to.equal(`${where} has unknown key "colour" (allowed: type, currency, decimals, prefix, suffix)`);
  });

  it('is a panel field of charts, tables and tiles, and not of text', () => {
    const spec = parseDashboardSpec({
      title: 'T',
      data: { d: [{ a: 1 }] },
      panels: [{ id: 's', type: 'stat', query: 'd', value: 'a', format: { type: 'currency', currency: 'gbp' } }],
    });
    expect(spec.panels[0]!.format).to.deep.equal({ type: 'currency', currency: 'GBP' });
    const text = refusal(() => parseDashboardSpec({ title: 'T', panels: [{ id: 't', type: 'text', text: 'x', format: 'percent' }] }));
    expect(text.message).to.equal('spec.panels[0].format does not apply to a text panel: a text panel takes only `text` (markdown)');
  });
});
