import { chartWidth } from '../../adapters/render/page-style.js';
import { expect } from 'chai';
import { parseDashboardSpec } from '../../domain/dashboard-spec.js';
import { EchartsPageRenderer, pageChartDrawings } from '../../adapters/render/echarts-page-renderer.js';
import { cardSvg, dashboardImageSvg, plainText } from '../../adapters/render/dashboard-image.js';
import { PAGE_CSS, THEME_COLOURS } from '../../adapters/render/page-style.js';
import { IMAGE_FONT_FILES, PngImageRenderer } from '../../adapters/render/png-image-renderer.js';
import { readFileSync } from 'node:fs';
import { isSpecPage, themedPage, withoutPreviewTags } from '../../application/hosting/page-variants.js';
import { pngStats } from '../support/image-fixtures.js';
import { showcaseSpec } from './render-fixture.js';

const context = { fallbackTitle: 'Fallback', renderedAt: new Date('2025-06-01T12:30:45Z'), url: 'http://alice.dash.localhost:8787/sales' };
const page = (spec = showcaseSpec(), url = context.url) => new EchartsPageRenderer().render(spec, {}, { ...context, url }).html;

describe('adapters: themes, link previews and images of spec dashboards', () => {
  it('writes the preview tags on one line of escaped text, which the host can drop whole', () => {
    const spec = parseDashboardSpec({ title: 'A "quoted" <title>\nover two lines', description: 'Line one\nline <two> & "three"', data: { d: [{ n: 1 }] }, panels: [{ id: 'p', type: 'table', query: 'd' }] });
    const html = page(spec);
    const line = html.split('\n').find((l) => l.startsWith('<meta property="og:type"'))!;
    expect(line).to.equal(
      '<meta property="og:type" content="website">' +
        '<meta property="og:title" content="A &quot;quoted&quot; &lt;title&gt; over two lines">' +
        '<meta property="og:description" content="Line one line &lt;two&gt; &amp; &quot;three&quot;">' +
        '<meta property="og:url" content="http://alice.dash.localhost:8787/sales">' +
        '<meta property="og:image" content="http://alice.dash.localhost:8787/_image/sales.png">' +
        '<meta property="og:image:width" content="1200">' +
        '<meta property="og:image:alt" content="A &quot;quoted&quot; &lt;title&gt; over two lines">' +
        '<meta name="twitter:card" content="summary_large_image">',
    );
    const stripped = withoutPreviewTags(Buffer.from(html)).toString();
    expect(stripped).to.not.match(/og:|twitter:/);
    expect(stripped).to.equal(html.replace(`${line}\n`, ''));
    // Without an http(s) URL (a dry run's preview), there is nothing to link to.
    expect(page(spec, 'dashpub://preview')).to.not.contain('og:');
  });

  it('leaves pages it did not render alone', () => {
    const body = Buffer.from('<!doctype html>\n<html lang="en"><head><meta property="og:type" content="website">\n</head></html>');
    expect(isSpecPage(body)).to.equal(false);
    expect(withoutPreviewTags(body)).to.equal(body);
    expect(themedPage(body, 'dark')).to.equal(body);
  });

  it('styles both themes with variables: the reader\'s setting unless data-theme pins one, charts repainted by attribute', () => {
    expect(PAGE_CSS).to.contain(':root{color-scheme:light;--bg:#f5f7fb');
    expect(PAGE_CSS).to.contain('@media (prefers-color-scheme:dark){:root:not([data-theme=light]){color-scheme:dark;--bg:#0b1120');
    expect(PAGE_CSS).to.contain(':root[data-theme=dark]{color-scheme:dark;--bg:#0b1120');
    expect(PAGE_CSS).to.contain('.chart-svg [fill="#475569"]{fill:var(--chart-ink)}');
    // Every colour outside the theme blocks comes from a variable.
    const rules = PAGE_CSS.slice(PAGE_CSS.indexOf('*,*::before'));
    expect(rules.match(/#[0-9a-f]{3,6}\b/gi)).to.equal(null);
    expect(Object.keys(THEME_COLOURS.dark)).to.deep.equal(Object.keys(THEME_COLOURS.light));
    const dark = themedPage(Buffer.from(page()), 'dark').toString();
    expect(dark.startsWith('<!doctype html>\n<html lang="en" data-theme="dark">')).to.equal(true);
  });

  it('draws the image SVG with escaped text and no control characters, and null for an unknown panel', () => {
    const spec = parseDashboardSpec({
      title: 'Evil </text><script>x</script>',
      data: { d: [{ name: 'a\u0001b <b>&', n: 3 }] },
      panels: [{ id: 'p', type: 'table', query: 'd' }, { id: 'q', type: 'stat', query: 'd', value: 'name' }],
    });
    const image = dashboardImageSvg(spec, {}, { ...context, theme: 'dark' })!;
    expect(image.width).to.equal(1200);
    expect(image.svg).to.contain('Evil &lt;/text&gt;&lt;script&gt;x&lt;/script&gt;');
    expect(image.svg).to.contain('ab &lt;b&gt;&amp;');
    expect(image.svg).to.not.contain('<script');
    expect(image.svg).to.not.match(/[\u0000-\u0008]/);
    expect(image.svg).to.contain(`fill="${THEME_COLOURS.dark.bg}"`);
    expect(dashboardImageSvg(spec, {}, { ...context, theme: 'light', panelId: 'q' })!.width).to.equal(800);
    expect(dashboardImageSvg(spec, {}, { ...context, theme: 'light', panelId: 'nope' })).to.equal(null);
    const card = cardSvg({ name: 'Q1 <plan> & "more"', owner: 'ada', publishedAt: context.renderedAt, theme: 'light' });
    expect([card.width, card.height]).to.deep.equal([1200, 630]);
    expect(card.svg).to.contain('Q1 &lt;plan&gt; &amp; &quot;more&quot;').and.contain('Published 2025-06-01 12:30 UTC');
    expect(plainText('## Head\n\n- **bold** [link](https://x) `code`')).to.equal('Head\n\n• bold link code');
  });

  it('reuses the page\'s wide chart drawings in the image, scaled, and draws afresh where the scale would be too far', () => {
    const html = page();
    const drawings = pageChartDrawings(html);
    expect([...drawings.keys()].sort()).to.deep.equal(['channels', 'orders-by-region', 'revenue-area', 'revenue-trend', 'visits-signups']);
    const trend = drawings.get('revenue-trend')!;
    expect([trend.width, trend.height]).to.deep.equal([chartWidth(8), 300]);
    expect(html).to.contain(trend.svg);
    const reused = dashboardImageSvg(showcaseSpec(), {}, { ...context, theme: 'dark', page: html })!;
    const drawn = dashboardImageSvg(showcaseSpec(), {}, { ...context, theme: 'dark' })!;
    // The page drew the 8-column trend at its panel's width; the image's own drawing is 720 px wide.
    expect(reused.svg).to.contain(`viewBox="0 0 ${chartWidth(8)} 300"`).and.not.contain('viewBox="0 0 720 300"');
    expect(drawn.svg).to.contain('viewBox="0 0 720 300"').and.not.contain(`viewBox="0 0 ${chartWidth(8)} 300"`);
    expect(reused.svg).to.contain(`fill="${THEME_COLOURS.dark['chart-ink']}"`);
    // Every chart is the page's own drawing, the 4-column pie's 384 px included (shown at 336 px).
    expect(reused.svg.match(/viewBox="[^"]*"/g)!.slice(1).sort()).to.deep.equal([...drawings.values()].map((d) => `viewBox="0 0 ${d.width} ${d.height}"`).sort());
    // The 6-column bars, drawn narrower for the page, would grow by over a fifth in the 736 px panel image: drawn again.
    const panel = dashboardImageSvg(showcaseSpec(), {}, { ...context, theme: 'light', panelId: 'orders-by-region', page: html })!;
    expect(736 / chartWidth(6)).to.be.above(1.2);
    expect(panel.svg).to.contain('viewBox="0 0 736 360"').and.not.contain(`viewBox="0 0 ${chartWidth(6)} 300"`);
  });

  it('takes no drawing from a page but the charts it drew: text that imitates one, or one reaching outside, is ignored', () => {
    const fake = '<section class="panel line span-12" id="panel-t" data-panel-type="line"><figure class="chart"><svg viewBox="0 0 10 10"><rect/></svg></figure>';
    const spec = parseDashboardSpec({ title: 'T', data: { d: [{ x: 1, y: 2 }] }, panels: [{ id: 't', type: 'text', text: fake }, { id: 'c', type: 'line', query: 'd', x: 'x', y: 'y' }] });
    expect([...pageChartDrawings(page(spec)).keys()]).to.deep.equal(['c']);
    const reaching = fake.replace('<rect/>', '<image href="/etc/passwd"/>');
    expect(pageChartDrawings(fake).size).to.equal(1);
    expect(pageChartDrawings(reaching).size).to.equal(0);
    expect(pageChartDrawings(fake.replace('<rect/>', '<use href="#x"/>')).size).to.equal(0);
  });

  it('draws with the Inter files the repository ships, regular, semibold and bold', () => {
    expect(IMAGE_FONT_FILES.map((file) => file.split('/').slice(-3).join('/'))).to.deep.equal([
      'assets/fonts/Inter_400Regular.ttf',
      'assets/fonts/Inter_600SemiBold.ttf',
      'assets/fonts/Inter_700Bold.ttf',
    ]);
    // TrueType files: the sfnt version 1.0 tag, which resvg needs (it cannot read WOFF).
    for (const file of IMAGE_FONT_FILES) expect(readFileSync(file).subarray(0, 4).toString('hex'), file).to.equal('00010000');
  });

  it('rasterises the showcase dashboard and a panel to non-blank PNGs of the stated widths', async function () {
    this.timeout(30_000);
    const renderer = new PngImageRenderer();
    const whole = await renderer.renderPng(showcaseSpec(), {}, { ...context, theme: 'light' });
    const panel = await renderer.renderPng(showcaseSpec(), {}, { ...context, theme: 'dark', panelId: 'channels' });
    const [w, p] = [pngStats(Buffer.from(whole!)), pngStats(Buffer.from(panel!))];
    expect([w.width, p.width]).to.deep.equal([1200, 800]);
    expect(w.variance).to.be.greaterThan(50);
    expect(p.variance).to.be.greaterThan(50);
    expect(await renderer.renderPng(showcaseSpec(), {}, { ...context, theme: 'dark', panelId: 'missing' })).to.equal(null);
  });
});
