import { expect } from 'chai';
import { parseDashboardSpec, type Row } from '../../domain/dashboard-spec.js';
import { EchartsPageRenderer } from '../../adapters/render/echarts-page-renderer.js';
import { dashboardImageSvg } from '../../adapters/render/dashboard-image.js';

const context = { fallbackTitle: 'F', renderedAt: new Date('2025-06-01T12:00:00Z'), url: 'http://alice.dash.localhost:8787/hover' };
const sales: Row[] = [
  { month: 'Jan', region: 'North', revenue: 1200.5, cost: 800 },
  { month: 'Feb', region: 'North', revenue: 1340, cost: 910 },
  { month: 'Jan', region: 'South <b>&', revenue: 700, cost: 500 },
];

function page(panels: Array<Record<string, unknown>>, rows: Row[] = sales): string {
  const spec = parseDashboardSpec({ title: 'Hover', data: { d: rows }, panels: panels.map((panel, i) => ({ id: `p${i}`, query: 'd', ...panel })) });
  return new EchartsPageRenderer().render(spec, {}, context).html;
}

/** The titles inside one panel's wide drawing. */
function titles(html: string, id: string): string[] {
  const section = html.slice(html.indexOf(`id="panel-${id}"`));
  const svg = section.slice(0, section.indexOf('</svg>'));
  return [...svg.matchAll(/<title>([^<]*)<\/title>/g)].map((m) => m[1]!);
}

describe('adapters: values on hover, with no script (issue 34)', () => {
  it('titles every point, bar, slice and tile with its label, series and formatted value', () => {
    const html = page([
      { type: 'line', x: 'month', y: ['revenue', 'cost'] },
      { type: 'bar', x: 'month', y: 'revenue', series: 'region' },
      { type: 'area', x: 'month', y: 'cost' },
      { type: 'pie', x: 'region', y: 'revenue' },
      { type: 'scatter', x: 'cost', y: 'revenue' },
      { type: 'stat', value: 'revenue', title: 'Revenue' },
    ]);
    expect(titles(html, 'p0')).to.include.members(['Jan · revenue: 1,200.5', 'Feb · revenue: 1,340', 'Feb · cost: 910']);
    expect(titles(html, 'p1')).to.include.members(['Jan · North: 1,200.5', 'Feb · North: 1,340', 'Jan · South &lt;b&gt;&amp;: 700']);
    expect(titles(html, 'p2')).to.include.members(['Jan · cost: 800', 'Feb · cost: 910']);
    expect(titles(html, 'p3')).to.deep.equal(['North · revenue: 2,540.5 (78%)', 'South &lt;b&gt;&amp; · revenue: 700 (22%)']);
    expect(titles(html, 'p4')).to.include.members(['cost 800 · revenue: 1,200.5', 'cost 500 · revenue: 700']);
    expect(html).to.contain('<p class="stat-value" title="Revenue: 1,200.5">1,200.5</p>');
    // ECharts' SSR metadata is for its client runtime; the page has none, and no script at all.
    expect(html).to.not.contain('ecmeta_');
    expect(html).to.not.match(/<script|\son[a-z]+=/i);
  });

  it('gives dense series hover bands over the plot instead of a title per point, and a cloud one title', () => {
    const rows = Array.from({ length: 3000 }, (_, i) => ({ day: `d${String(i).padStart(4, '0')}`, n: i % 50, m: (i * 7) % 13 }));
    const html = page([{ type: 'line', x: 'day', y: ['n', 'm'] }, { type: 'bar', x: 'day', y: 'n' }, { type: 'scatter', x: 'm', y: 'n', width: 6 }], rows);
    for (const id of ['p0', 'p1']) {
      const bands = titles(html, id);
      // A band is at least 8 px wide: at most one per 8 px of the 1152 px drawing, and more than a few.
      expect(bands.length, id).to.be.within(20, 1152 / 8);
      expect(bands[0], id).to.match(/^d0000( – d\d{4})? · n: \d+(–\d+)?/);
      expect(bands.at(-1), id).to.match(/d2999 · n: /);
    }
    expect(titles(html, 'p0')[0]).to.match(/ · m: \d+(–\d+)?$/);
    expect(titles(html, 'p2')).to.deep.equal(['n: 1,000 points, m 0–12, n 0–49']);
  });

  it('escapes markup in every hover text: a point, a slice, a band, a cloud, a tile and a caption', () => {
    const evil = '</title><script>alert(1)</script>';
    const rows = [{ k: evil, v: 1, w: 2 }, { k: 'b', v: 2, w: 3 }];
    const dense = Array.from({ length: 600 }, (_, i) => ({ k: i === 0 ? evil : `k${i}`, v: i, w: i % 7 }));
    const html =
      page([{ type: 'bar', x: 'k', y: 'v', series: 'k' }, { type: 'pie', x: 'k', y: 'v' }, { type: 'stat', value: 'k', title: evil }, { type: 'table', title: evil }], rows) +
      page([{ type: 'line', x: 'k', y: 'v' }, { type: 'scatter', x: 'w', y: 'v', series: 'k' }], dense);
    expect(html).to.not.contain('<script').and.not.contain('</title><script');
    expect(html).to.contain('&lt;/title&gt;&lt;script&gt;alert(1)&lt;/script&gt; · ');
    expect(html).to.contain('<caption>&lt;/title&gt;&lt;script&gt;');
  });

  it('applies a panel\'s format to its tile, axis, hover titles and table cells, on the page and in the image', () => {
    const rows = [{ month: 'Jan', churn: 0.021, mrr: 18250.5, size: 1536 }, { month: 'Feb', churn: 0.034, mrr: 19100, size: 3 * 1024 ** 2 }];
    const panels = [
      { id: 'churn', type: 'stat', query: 'd', value: 'churn', title: 'Churn', format: 'percent' },
      { id: 'mrr', type: 'bar', query: 'd', x: 'month', y: 'mrr', format: { type: 'currency', currency: 'EUR', decimals: 0 } },
      { id: 'sizes', type: 'table', query: 'd', format: 'bytes' },
    ];
    const spec = parseDashboardSpec({ title: 'Formats', data: { d: rows }, panels });
    const html = new EchartsPageRenderer().render(spec, {}, context).html;
    expect(html).to.contain('<p class="stat-value" title="Churn: 2.1%">2.1%</p>');
    expect(titles(html, 'mrr')).to.include.members(['Jan · mrr: €18,251', 'Feb · mrr: €19,100']);
    // The value axis's ticks are in euros too.
    expect(html.slice(html.indexOf('id="panel-mrr"'))).to.match(/>€\d[\d,]*</);
    expect(html).to.contain('<td class="num">1.5 KiB</td>').and.contain('<td class="num">3 MiB</td>');
    const image = dashboardImageSvg(spec, {}, { ...context, theme: 'light', page: html })!.svg;
    expect(image).to.contain('>2.1%</text>').and.contain('>1.5 KiB</text>').and.contain('>3 MiB</text>');
    expect(image).to.contain('<g><title>Churn: 2.1%</title><text').and.contain('<title>Jan · mrr: €18,251</title>');
    // A prefix or suffix is the author's text: escaped on the tile, the axis, the titles and the cells.
    const evil = { type: 'number', prefix: '<i>', suffix: '</svg>&' };
    const marked = parseDashboardSpec({ title: 'F', data: { d: rows }, panels: panels.map((panel) => ({ ...panel, format: evil })) });
    const markedHtml = new EchartsPageRenderer().render(marked, {}, context).html;
    expect(markedHtml).to.not.contain('<i>').and.not.contain('</svg>&');
    expect(markedHtml).to.contain('&lt;i&gt;0.02&lt;/svg&gt;&amp;</p>').and.contain('<title>Jan · mrr: &lt;i&gt;18,250.5&lt;/svg&gt;&amp;</title>');
    expect(dashboardImageSvg(marked, {}, { ...context, theme: 'dark', page: markedHtml })!.svg).to.not.contain('<i>');
  });

  it('captions each table and scopes its headers', () => {
    const html = page([
      { type: 'table', title: 'Sales <by> region' },
      { type: 'table' },
    ]);
    expect(html).to.contain('<table><caption>Sales &lt;by&gt; region</caption><thead><tr><th scope="col">month</th><th scope="col">region</th><th scope="col" class="num">revenue</th>');
    expect(html).to.contain('<table><caption>Rows of d</caption>');
    expect(html.match(/<th[\s>](?![^>]*scope="col")/g)).to.equal(null);
  });
});
