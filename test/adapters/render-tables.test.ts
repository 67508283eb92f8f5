import { expect } from 'chai';
import { parseDashboardSpec, type Row } from '../../domain/dashboard-spec.js';
import { EchartsPageRenderer } from '../../adapters/render/echarts-page-renderer.js';
import { PAGE_CSS } from '../../adapters/render/page-style.js';
import { zonedColumnTexts } from '../../adapters/render/table-columns.js';
import { dashboardImageSvg } from '../../adapters/render/dashboard-image.js';
import { shareableSpec } from './render-fixture.js';

const context = { fallbackTitle: 'T', renderedAt: new Date('2025-06-01T12:30:45Z'), url: 'http://alice.dash.localhost:8787/t' };
const tableOf = (spec: Record<string, unknown>) => {
  const html = new EchartsPageRenderer().render(parseDashboardSpec(spec), {}, context).html;
  const start = html.indexOf('<table>');
  return html.slice(start, html.indexOf('</table>', start));
};
const headers = (table: string) => [...table.matchAll(/<th(?: [^>]*)?>(.*?)<\/th>/g)].map((m) => m[1]);
const cells = (table: string) => [...table.matchAll(/<td[^>]*>(.*?)<\/td>/g)].map((m) => m[1]);
const single = (rows: Row[], panel: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) =>
  tableOf({ title: 'T', ...extra, data: { d: rows }, panels: [{ id: 't', type: 'table', query: 'd', ...panel }] });

describe('adapters: table columns and time zones', () => {
  it('shows the listed columns in their order under their labels, escaped', () => {
    const rows = [{ a: 1, b: 'x', c: 'hidden' }];
    const table = single(rows, { columns: [{ id: 'b', label: 'Bee <b>' }, { id: 'a' }] });
    expect(headers(table)).to.deep.equal(['Bee &lt;b&gt;', 'a']);
    expect(cells(table)).to.deep.equal(['x', '1']);
    expect(headers(single(rows))).to.deep.equal(['a', 'b', 'c']);
  });

  it('formats each listed column by its own format, over the panel\'s, numeric text included', () => {
    const rows = [
      { name: 'Acme', revenue: '18250.5', share: 0.4213, size: 1536, count: 12_345, note: 'n/a' },
      { name: 'Globex', revenue: '900', share: null, size: 5 * 1024 ** 3, count: 7, note: '3' },
    ];
    const table = single(rows, {
      format: 'compact',
      columns: [
        { id: 'name', label: 'Name' },
        { id: 'revenue', label: 'Revenue', format: { type: 'currency', currency: 'EUR', decimals: 0 } },
        { id: 'share', label: 'Share', format: 'percent' },
        { id: 'size', format: 'bytes' },
        { id: 'count' },
        { id: 'note', format: 'number' },
      ],
    });
    expect(headers(table)).to.deep.equal(['Name', 'Revenue', 'Share', 'size', 'count', 'note']);
    expect(table).to.contain('<th scope="col" class="num">Revenue</th>');
    expect(cells(table)).to.deep.equal(['Acme', '€18,251', '42.1%', '1.5 KiB', '12.3K', 'n/a', 'Globex', '€900', '—', '5 GiB', '7', '3']);
  });

  it('shows instants on the spec zone\'s clocks, summer and winter, and names the zone in the header', () => {
    const table = tableOf(shareableSpec() as unknown as Record<string, unknown>);
    expect(headers(table)).to.deep.equal(['Account', 'Region', 'Seats', 'ARR', 'Last change <span class="zone">(Europe/Paris)</span>']);
    // 00:30Z on the night clocks go forward is 01:30 in Paris; July is UTC+2, November UTC+1.
    expect(cells(table).filter((c) => /^\d{4}-/.test(c!))).to.deep.equal(['2025-03-30 01:30', '2025-07-14 11:05', '2025-11-03 00:59']);
  });

  it('names UTC when the spec gives no zone, and leaves calendar dates and zoneless times as written', () => {
    const rows = [{ at: '2025-01-01T10:00:00Z', day: '2025-01-01T00:00:00.000Z', local: '2025-01-01 10:00' }];
    const table = single(rows);
    expect(headers(table)).to.deep.equal(['at <span class="zone">(UTC)</span>', 'day', 'local']);
    expect(cells(table)).to.deep.equal(['2025-01-01 10:00', '2025-01-01', '2025-01-01 10:00']);
    expect(zonedColumnTexts(['2025-01-01T10:00:07+02:00', null], 'Asia/Tokyo')).to.deep.equal({ texts: ['2025-01-01 17:00:07', ''], zoned: true });
    expect(zonedColumnTexts([new Date('2025-01-01T10:00:00Z')], 'America/New_York')).to.deep.equal({ texts: ['2025-01-01 05:00'], zoned: true });
  });

  it('lets cells break between words only, and tiles keep their own height', () => {
    expect(PAGE_CSS).to.not.match(/(?:^|\})[^{}]*\btd\b[^{}]*\{[^}]*overflow-wrap:anywhere/);
    expect(PAGE_CSS).to.match(/th,td\{[^}]*overflow-wrap:break-word/);
    expect(PAGE_CSS).to.contain('.grid>.stat{align-self:start}');
  });
});

describe('adapters: table columns and time zones in images', () => {
  it('draws the same labels, zone and wall times as the page', () => {
    const image = dashboardImageSvg(shareableSpec(), {}, { fallbackTitle: 'T', renderedAt: context.renderedAt, theme: 'light', panelId: 'accounts' })!;
    const words = [...image.svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(words).to.include.members(['Account', 'Seats', '2025-07-14 11:05']);
    expect(words.some((w) => w!.startsWith('Last change (Eur'))).to.equal(true); // cut to its column's width
    expect(words).to.not.include('updated_at');
  });

  it('draws column formats as the page does', () => {
    const spec = parseDashboardSpec({
      title: 'T', data: { d: [{ revenue: '18250.5', share: 0.4213 }] },
      panels: [{ id: 't', type: 'table', query: 'd', columns: [{ id: 'revenue', format: { type: 'currency', currency: 'EUR', decimals: 0 } }, { id: 'share', format: 'percent' }] }],
    });
    const image = dashboardImageSvg(spec, {}, { fallbackTitle: 'T', renderedAt: context.renderedAt, theme: 'light', panelId: 't' })!;
    const words = [...image.svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) => m[1]);
    expect(words).to.include.members(['€18,251', '42.1%']);
  });
});
