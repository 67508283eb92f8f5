import { expect } from 'chai';
import { parseDashboardSpec, type Row } from '../../domain/dashboard-spec.js';
import { EchartsPageRenderer } from '../../adapters/render/echarts-page-renderer.js';
import { dashboardImageSvg } from '../../adapters/render/dashboard-image.js';
import { PAGE_CSS, THEME_COLOURS } from '../../adapters/render/page-style.js';

const context = { fallbackTitle: 'T', renderedAt: new Date('2025-06-01T12:30:45Z'), url: 'http://alice.dash.localhost:8787/t' };
const specOf = (rows: Row[], panel: Record<string, unknown>) =>
  parseDashboardSpec({ title: 'T', data: { d: rows }, panels: [{ id: 's', type: 'stat', title: 'MRR', query: 'd', value: 'v', ...panel }] });
const tile = (rows: Row[], panel: Record<string, unknown>) => {
  const html = new EchartsPageRenderer().render(specOf(rows, panel), {}, context).html;
  return html.slice(html.indexOf('<section'), html.indexOf('</section>'));
};
const delta = (rows: Row[], panel: Record<string, unknown>) => /<p class="stat-delta[^"]*">.*?<\/p>/.exec(tile(rows, panel))?.[0];

describe('adapters: stat tiles compare with a previous value (issue 34)', () => {
  it('shows the change with an arrow, a signed amount in the panel format, the relative change and words for screen readers', () => {
    expect(delta([{ v: 18_250.5, prev: 17_000 }], { compare: 'prev', format: { type: 'currency', currency: 'EUR' } })).to.equal(
      '<p class="stat-delta good"><span class="arrow" aria-hidden="true">▲</span> +€1,250.50 (+7.4%) <span class="sr-only">up from €17,000.00, an improvement</span></p>',
    );
    expect(delta([{ v: 900, prev: 1_000 }], { compare: 'prev' })).to.equal(
      '<p class="stat-delta bad"><span class="arrow" aria-hidden="true">▼</span> \u2212100 (\u221210%) <span class="sr-only">down from 1,000, a worsening</span></p>',
    );
  });

  it('colours by the good direction, reads a ratio\'s change in points, and says when nothing changed', () => {
    expect(delta([{ v: 0.021, prev: '0.024' }], { compare: { column: 'prev', good: 'down' }, format: 'percent' })).to.equal(
      '<p class="stat-delta good"><span class="arrow" aria-hidden="true">▼</span> \u22120.3 pts <span class="sr-only">down from 2.4%, an improvement</span></p>',
    );
    expect(delta([{ v: 5, prev: 4 }], { compare: { column: 'prev', good: 'down' } })).to.contain('class="stat-delta bad"');
    expect(delta([{ v: 5, prev: 5 }], { compare: 'prev' })).to.equal('<p class="stat-delta flat">No change <span class="sr-only">from 5</span></p>');
    expect(delta([{ v: 5, prev: 0 }], { compare: 'prev' })).to.contain('+5 <span'); // no relative change from zero
  });

  it('shows no delta, and no error, when either value is missing or not a number', () => {
    for (const row of [{ v: 5, prev: null }, { v: 5 }, { v: null, prev: 4 }, { v: 5, prev: 'n/a' }, { v: true, prev: false }] as Row[]) {
      const html = tile([row, { v: 1, prev: 2 }], { compare: 'prev' });
      expect(html, JSON.stringify(row)).to.not.contain('stat-delta');
      expect(html).to.contain('class="stat-value"').and.not.contain('class="empty"');
    }
  });

  it('escapes and styles the delta in both themes, colour never alone', () => {
    expect(tile([{ v: 2, prev: 1 }], { compare: 'prev', format: { type: 'number', suffix: ' <b>' } })).to.contain('+1 &lt;b&gt; (+100%)');
    expect(PAGE_CSS).to.contain('.stat-delta.good{color:var(--good)}').and.contain('.stat-delta.bad{color:var(--bad)}').and.contain('.sr-only{');
    expect(THEME_COLOURS.light.good).to.not.equal(THEME_COLOURS.dark.good);
  });

  it('draws the delta in the image with a drawn arrow, its words in the tile\'s title', () => {
    const spec = specOf([{ v: 900, prev: 1_000 }], { compare: 'prev' });
    const svg = dashboardImageSvg(spec, {}, { fallbackTitle: 'T', renderedAt: context.renderedAt, theme: 'dark', panelId: 's' })!.svg;
    expect(svg).to.contain('<title>MRR: 900, \u2212100 (\u221210%) down from 1,000, a worsening</title>');
    expect(svg).to.match(new RegExp(`<path d="[^"]+" fill="${THEME_COLOURS.dark.bad}"/><text [^>]*fill="${THEME_COLOURS.dark.bad}"[^>]*>\u2212100 \\(\u221210%\\)</text>`));
    const plain = dashboardImageSvg(specOf([{ v: 900, prev: null }], { compare: 'prev' }), {}, { fallbackTitle: 'T', renderedAt: context.renderedAt, theme: 'light', panelId: 's' })!.svg;
    expect(plain).to.contain('<title>MRR: 900</title>').and.not.contain('<path');
  });
});

const spark = (html: string) => /<svg class="sparkline"[^>]*>.*?<\/svg>/.exec(html)?.[0];
const points = (svg: string) => /points="([^"]*)"/.exec(svg)![1]!.split(' ').map((p) => p.split(',').map(Number) as [number, number]);

describe('adapters: stat tiles draw a sparkline (issue 34)', () => {
  const months = [{ v: 30, m: '03' }, { v: 'n/a', m: '02' }, { v: 10, m: '01' }, { v: 20, m: '12' }] as Row[];

  it('draws the column over every row as inline SVG with a title, ending at the tile\'s value, skipping non-numbers', () => {
    const svg = spark(tile(months, { sparkline: 'v', format: { type: 'number', suffix: ' u' } }))!;
    expect(svg).to.match(/^<svg class="sparkline" viewBox="0 0 200 36" preserveAspectRatio="none" role="img" xmlns="http:\/\/www.w3.org\/2000\/svg"><title>/);
    expect(svg).to.contain('<title>MRR trend (v, 3 values): from 20 u to 30 u, low 10 u, high 30 u</title>');
    expect(svg).to.not.match(/<script|<foreignObject|href=/);
    // Oldest (last row) on the left, the tile's own first row on the right, higher values nearer the top.
    const [first, middle, last] = points(svg);
    expect([first![0], middle![0], last![0]]).to.deep.equal([0, 100, 200]);
    expect(last![1]).to.be.lessThan(first![1]).and.lessThan(middle![1]);
    expect(middle![1]).to.be.greaterThan(first![1]);
  });

  it('draws nothing for fewer than two numbers, and a flat line through the middle for equal ones', () => {
    expect(spark(tile([{ v: 1 }, { v: null }, { v: 'x' }], { sparkline: 'v' }))).to.equal(undefined);
    expect(tile([{ v: 1 }], { sparkline: 'v' })).to.contain('class="stat-value"');
    expect(points(spark(tile([{ v: 4 }, { v: 4 }], { sparkline: 'v' }))!)).to.deep.equal([[0, 18], [200, 18]]);
  });

  it('keeps each stretch\'s low and high when there are more rows than points', () => {
    const rows = Array.from({ length: 5_000 }, (_, i) => ({ v: i === 1_234 ? 500_000 : i % 10 })) as Row[];
    const svg = spark(tile(rows, { sparkline: 'v' }))!;
    expect(points(svg)).to.have.length(240);
    expect(points(svg).some(([, y]) => y === 2)).to.equal(true); // the spike reaches the top
    expect(svg).to.contain('5,000 values').and.contain('high 500,000');
  });

  it('escapes the title, and draws the same line in the image in the theme\'s colour', () => {
    const spec = parseDashboardSpec({ title: 'T', data: { d: months }, panels: [{ id: 's', type: 'stat', title: '<i>MRR</i>', query: 'd', value: 'v', sparkline: 'v' }] });
    const html = new EchartsPageRenderer().render(spec, {}, context).html;
    expect(spark(html)).to.contain('<title>&lt;i&gt;MRR&lt;/i&gt; trend');
    const svg = dashboardImageSvg(spec, {}, { fallbackTitle: 'T', renderedAt: context.renderedAt, theme: 'light', panelId: 's' })!.svg;
    expect(svg).to.contain('<title>&lt;i&gt;MRR&lt;/i&gt; trend (v, 3 values)');
    expect(svg).to.match(new RegExp(`<polyline points="[^"]+" fill="none" stroke="${THEME_COLOURS.light.link}"`));
    expect(PAGE_CSS).to.contain('.sparkline{');
  });
});
