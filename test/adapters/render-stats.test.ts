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
