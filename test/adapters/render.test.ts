import { expect } from 'chai';
import { parseDashboardSpec, type DashboardSpec, type Row } from '../../domain/dashboard-spec.js';
import { EchartsPageRenderer, MAX_TABLE_ROWS } from '../../adapters/render/echarts-page-renderer.js';
import { CONTENT_SECURITY_POLICY } from '../../adapters/render/page-style.js';
import { MAX_SCATTER_POINTS, PALETTE } from '../../adapters/render/charts.js';
import { showcaseSpec } from './render-fixture.js';

const renderer = new EchartsPageRenderer();
const context = { fallbackTitle: 'Fallback name', renderedAt: new Date('2025-06-01T12:30:45Z'), url: 'http://alice.dash.localhost:8787/sales' };
const render = (spec: DashboardSpec, data: Record<string, Row[]> = {}) => renderer.render(spec, data, context);

/** The inner HTML of one panel's <section>. */
function panelHtml(html: string, id: string): string {
  const start = html.indexOf(`id="panel-${id}"`);
  expect(start, `panel ${id}`).to.be.greaterThan(-1);
  return html.slice(start, html.indexOf('</section>', start));
}

/** Every opening tag, attributes included; escaped text cannot produce one. */
const openingTags = (html: string) => [...html.matchAll(/<[a-zA-Z][^>]*>/g)].map((m) => m[0]);

const single = (panel: Record<string, unknown>, data: Record<string, unknown>) =>
  parseDashboardSpec({ title: 'T', data, panels: [{ id: 'p', ...panel }] });

describe('adapters: ECharts page renderer', () => {
  describe('the page', () => {
    const { html } = render(showcaseSpec());

    it('is a complete HTML document with a strict CSP and no script, external resource or inline handler', () => {
      expect(html.startsWith('<!doctype html>\n<html lang="en" data-theme="auto">')).to.equal(true);
      expect(html).to.contain(`<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">`);
      expect(CONTENT_SECURITY_POLICY).to.match(/^default-src 'none'; style-src 'unsafe-inline'; img-src data:/);
      expect(html).to.contain('<meta name="viewport" content="width=device-width, initial-scale=1">');
      expect(html.toLowerCase()).to.not.contain('<script');
      expect(html).to.not.match(/<(link|img|iframe|object|embed)\b/i);
      expect(openingTags(html).filter((tag) => /\s(src|srcset|on[a-z]+)=/i.test(tag))).to.deep.equal([]);
      expect(html).to.not.match(/url\((?!#)/i); // only in-document references such as clip paths
      expect(html).to.not.match(/@import/i);
      // The only absolute URLs are XML namespaces and the page's own data link and markdown link.
      const urls = [...html.matchAll(/(?:href|xmlns(?::xlink)?)="([^"]+)"/g)].map((m) => m[1]);
      expect(new Set(urls)).to.deep.equal(
        new Set(['http://www.w3.org/2000/svg', 'http://www.w3.org/1999/xlink', 'https://example.com/finance', 'http://alice.dash.localhost:8787/sales/data.json']),
      );
    });

    it('keeps element ids unique across all inline SVGs (clip paths would cross-link otherwise)', () => {
      const ids = [...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]);
      expect(ids.length).to.be.greaterThan(12);
      expect(new Set(ids).size).to.equal(ids.length);
    });

    it('escapes the title and description, and shows when it was refreshed', () => {
      expect(html).to.contain('<title>Sales overview &lt;Q1 &amp; Q2&gt;</title>');
      expect(html).to.contain('<h1>Sales overview &lt;Q1 &amp; Q2&gt;</h1>');
      expect(html).to.contain('<p class="description">Revenue, orders and sign-ups across regions.\nNumbers are in euros.</p>');
      expect(html).to.contain('<p class="meta">Last refreshed <time datetime="2025-06-01T12:30:45.000Z">2025-06-01 12:30 UTC</time></p>');
    });

    it('lays out panels on a 12-column grid honouring width and type defaults', () => {
      expect(html).to.contain('<section class="panel stat span-3" id="panel-total-revenue" data-panel-type="stat">');
      expect(html).to.contain('<section class="panel line span-8 has-narrow" id="panel-revenue-trend" data-panel-type="line">');
      expect(html).to.contain('<section class="panel pie span-4" id="panel-channels" data-panel-type="pie">');
      expect(html).to.contain('<section class="panel table span-12" id="panel-customers" data-panel-type="table">');
      expect(html).to.match(/\.grid\{display:grid;grid-template-columns:repeat\(12,minmax\(0,1fr\)\)/);
      expect(html).to.contain('@media (max-width:640px)');
    });

    it('draws each chart as a scalable inline SVG: desktop, phone and small drawings for half-width panels, a medium one too from 7 columns', () => {
      for (const id of ['revenue-trend', 'orders-by-region', 'revenue-area', 'visits-signups']) {
        const panel = panelHtml(html, id);
        expect(panel.match(/<svg /g), id).to.have.length(id === 'revenue-trend' ? 4 : 3);
        expect(panel).to.contain('<div class="chart-wide"><svg class="chart-svg" role="img"');
        expect(panel).to.contain('<div class="chart-narrow"><svg class="chart-svg"');
        expect(panel).to.match(/viewBox="0 0 340 300"/);
        expect(panel).to.match(/<div class="chart-small"><svg [^>]*viewBox="0 0 200 \d+"/);
        expect(panel).to.not.match(/<svg[^>]* width="/);
      }
      // A four-column chart has no phone drawing, only a small one, so the phone rules leave it alone.
      const pie = panelHtml(html, 'channels');
      expect(pie.match(/<svg /g)).to.have.length(2);
      expect(pie).to.match(/<div class="chart-wide"><svg [^>]*viewBox="0 0 349 300">[\s\S]*<\/svg><\/div><div class="chart-small"><svg [^>]*viewBox="0 0 200 \d+">/);
      expect(panelHtml(html, 'revenue-trend')).to.match(/<div class="chart-wide"><svg [^>]*viewBox="0 0 751 300">[\s\S]*<\/svg><\/div><div class="chart-medium"><svg [^>]*viewBox="0 0 520 300">[\s\S]*<\/svg><\/div><div class="chart-narrow"><svg [^>]*viewBox="0 0 340 300">[\s\S]*<\/svg><\/div><div class="chart-small"><svg [^>]*viewBox="0 0 200 \d+">/);
      expect(panelHtml(html, 'revenue-trend')).to.contain('aria-label="Revenue vs cost"');
    });

    it('puts series names, categories and shares into the chart text', () => {
      const bar = panelHtml(html, 'orders-by-region');
      for (const name of ['North', 'South', 'East', 'West', '2025-01-01']) expect(bar).to.contain(`>${name}<`);
      expect(panelHtml(html, 'channels')).to.contain('Search  44%');
      expect(panelHtml(html, 'revenue-trend')).to.contain('>70K<');
    });

    it('renders text panels through the safe markdown subset', () => {
      const notes = panelHtml(html, 'notes');
      expect(notes).to.contain('<h4>How to read this</h4>');
      expect(notes).to.contain('<strong>net of refunds</strong>');
      expect(notes).to.contain('<li>&lt;img src=x onerror=alert(1)&gt; stays text</li>');
    });

    it('renders tables with escaped cells, numbers right-aligned and nulls marked', () => {
      const table = panelHtml(html, 'customers');
      expect(table).to.contain('<th scope="col">name</th><th scope="col">country</th><th scope="col" class="num">orders</th><th scope="col" class="num">spend</th>');
      expect(table).to.contain('<td>Acme &lt;script&gt;alert(1)&lt;/script&gt;</td>');
      expect(table).to.contain('<td class="num">10,450.5</td>');
      expect(table).to.contain('<td class="num">6,210</td>');
      expect(table).to.contain('<td class="num">12</td>');
      expect(table).to.contain('<td class="null num">—</td>');
    });

    it('formats stat tiles', () => {
      expect(panelHtml(html, 'total-revenue')).to.contain('<p class="stat-value" title="Revenue: 1,234,567">1.2M</p>');
      expect(panelHtml(html, 'total-orders')).to.contain('<p class="stat-value" title="Orders: 8,432">8,432</p>');
      expect(panelHtml(html, 'conversion')).to.contain('<p class="stat-value" title="Conversion %: 3.75">3.75</p>');
      expect(panelHtml(html, 'status')).to.contain('<p class="stat-value" title="Status: healthy">healthy</p>');
    });

    it('shows an empty state for a query that has not run yet', () => {
      expect(panelHtml(html, 'live')).to.contain('<p class="empty">No data yet: this panel fills in when the query &quot;live&quot; runs.</p>');
    });
  });

  describe('data', () => {
    it('uses query results, serialises them with the inline data into dataJson, and ignores unknown ids', () => {
      const spec = showcaseSpec();
      const { html, dataJson } = render(spec, { live: [{ n: 1 }], stray: [{ x: 1 }] });
      expect(panelHtml(html, 'live')).to.contain('<td class="num">1</td>');
      const parsed = JSON.parse(dataJson);
      expect(parsed.renderedAt).to.equal('2025-06-01T12:30:45.000Z');
      expect(Object.keys(parsed.data)).to.deep.equal(['live', 'revenue', 'by_region', 'channels', 'points', 'totals', 'customers']);
      expect(parsed.data.live).to.deep.equal([{ n: 1 }]);
      expect(parsed.data.totals).to.deep.equal(spec.data!.totals);
    });

    it('omits queries that did not run from dataJson', () => {
      expect(Object.keys(JSON.parse(render(showcaseSpec()).dataJson).data)).to.not.include('live');
    });

    it('does not mistake inherited names for query results', () => {
      const spec = parseDashboardSpec({ title: 'T', queries: { constructor: { sql: 'select 1' } }, panels: [{ id: 'p', type: 'table', query: 'constructor' }] });
      const { html, dataJson } = render(spec, {});
      expect(panelHtml(html, 'p')).to.contain('No data yet');
      expect(JSON.parse(dataJson).data).to.deep.equal({});
    });

    it('shows an empty state for zero rows and for missing columns', () => {
      const spec = parseDashboardSpec({
        title: 'T',
        queries: { q: { sql: 'select 1' } },
        panels: [
          { id: 'a', type: 'line', query: 'q', x: 'day', y: 'n' },
          { id: 'b', type: 'stat', query: 'q', value: 'total', title: 'Total' },
        ],
      });
      const empty = render(spec, { q: [] }).html;
      expect(panelHtml(empty, 'a')).to.contain('<p class="empty">No rows to show.</p>');
      expect(panelHtml(empty, 'b')).to.contain('No rows to show.');
      const wrong = render(spec, { q: [{ day: '2025-01-01', count: 3 }] }).html;
      expect(panelHtml(wrong, 'a')).to.contain('Column &quot;n&quot; not found in &quot;q&quot; (columns: day, count).');
      expect(panelHtml(wrong, 'b')).to.contain('Column &quot;total&quot; not found');
      expect(panelHtml(wrong, 'a')).to.not.contain('<svg');
    });
  });

  describe('limits', () => {
    it(`shows at most ${MAX_TABLE_ROWS} table rows and says so`, () => {
      const rows = Array.from({ length: 250 }, (_, i) => ({ i }));
      const table = panelHtml(render(single({ type: 'table', query: 'd' }, { d: rows })).html, 'p');
      expect(table.match(/<tr>/g)).to.have.length(MAX_TABLE_ROWS + 1);
      expect(table).to.contain('Showing the first 100 of 250 rows. The full data is in data.json.');
    });

    it(`samples scatter plots down to about ${MAX_SCATTER_POINTS} points and says so`, () => {
      const rows = Array.from({ length: 5000 }, (_, i) => ({ x: i, y: (i * 7) % 100 }));
      const panel = panelHtml(render(single({ type: 'scatter', query: 'd', x: 'x', y: 'y', width: 4 }, { d: rows })).html, 'p');
      expect(panel).to.contain('Showing 1,000 of 5,000 points.');
      expect(panel.length).to.be.lessThan(600_000);
    });

    it('draws a cloud of scatter points as one round-capped dot per point, placed where the axes put them', () => {
      const rows = Array.from({ length: 600 }, (_, i) => ({ x: i, y: i }));
      const panel = panelHtml(render(single({ type: 'scatter', query: 'd', x: 'x', y: 'y', width: 8 }, { d: rows })).html, 'p');
      const svgs = panel.match(/<svg[\s\S]*?<\/svg>/g)!;
      expect(svgs).to.have.length(4);
      for (const svg of svgs) {
        const path = new RegExp(`<path d="([^"]+)" fill="none" stroke="${PALETTE[0]}" stroke-width="6" stroke-linecap="round" stroke-opacity="0.75"`).exec(svg);
        expect(path, 'the dots path').to.not.equal(null);
        const dots = [...path![1]!.matchAll(/M([\d.]+) ([\d.]+)h0/g)].map((m) => [Number(m[1]), Number(m[2])] as const);
        expect(dots).to.have.length(600);
        expect(path![1]!.replace(/M[\d.]+ [\d.]+h0/g, '')).to.equal('');
        // The point (0, 0) sits where the x axis line starts, at the plot's lower left corner.
        const axis = /<path d="M([\d.]+) ([\d.]+)l[\d.]+ 0"/.exec(svg)!;
        expect(dots[0]![0]).to.be.closeTo(Number(axis[1]), 1);
        expect(dots[0]![1]).to.be.closeTo(Number(axis[2]), 1);
      }
    });

    it('groups small pie slices as Other', () => {
      const rows = Array.from({ length: 20 }, (_, i) => ({ k: `k${i}`, v: 100 - i }));
      const panel = panelHtml(render(single({ type: 'pie', query: 'd', x: 'k', y: 'v' }, { d: rows })).html, 'p');
      expect(panel).to.contain('The smallest 9 slices are grouped as Other.');
      expect(panel).to.match(/>Other {2}\d/);
      expect(panel).to.not.contain('>k19 ');
    });

    it('thins out thousands of bars, keeping each stretch\'s extremes, and says so', () => {
      const rows = Array.from({ length: 3000 }, (_, i) => ({ k: `k${i}`, v: i === 1234 ? 10_000 : i % 10 }));
      const panel = panelHtml(render(single({ type: 'bar', query: 'd', x: 'k', y: 'v', width: 6 }, { d: rows })).html, 'p');
      expect(panel).to.contain('3,000 bars are too many to draw; each stretch shows its highest and lowest.');
      expect(panel).to.contain('>10K<'); // the outlier survives and sets the axis
      expect(panel.length).to.be.lessThan(100_000);
    });

    it('keeps long line charts small by sampling', () => {
      const rows = Array.from({ length: 10_000 }, (_, i) => ({ t: `2024-01-01T${String(i % 24).padStart(2, '0')}:00:00Z`, v: Math.sin(i / 40) }));
      const panel = panelHtml(render(single({ type: 'line', query: 'd', x: 't', y: 'v', width: 12 }, { d: rows })).html, 'p');
      expect(panel.length).to.be.lessThan(200_000);
      expect(panel).to.contain('>2024-01-01 15:00<'); // the last point is labelled, at the column's shared precision
    });
  });

  describe('escaping inside charts', () => {
    it('escapes user strings that end up in SVG text and attributes', () => {
      const evil = '<script>alert("x")</script>';
      const spec = parseDashboardSpec({
        title: 'T',
        data: { d: [{ x: evil, y: 1, s: `"><img src=x onerror=alert(1)>` }, { x: 'b', y: 2, s: 'ok' }] },
        panels: [
          { id: 'bar', type: 'bar', title: `"' ${evil}`, query: 'd', x: 'x', y: 'y', series: 's', width: 12 },
          { id: 'pie', type: 'pie', query: 'd', x: 'x', y: 'y' },
          { id: 'sc', type: 'scatter', query: 'd', x: 'x', y: 'y', series: 's' },
        ],
      });
      const { html } = render(spec);
      expect(html.toLowerCase()).to.not.contain('<script');
      expect(html).to.not.contain('<img');
      expect(openingTags(html).filter((tag) => /\son[a-z]+=/i.test(tag))).to.deep.equal([]);
      expect(panelHtml(html, 'bar')).to.contain('aria-label="&quot;&#39; &lt;script&gt;');
    });
  });

  describe('the same bytes every time', () => {
    const ids = (html: string) => [...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!);

    it('draws the same page for the same spec and data, whatever was drawn before in the process', () => {
      const first = render(showcaseSpec()).html;
      render(single({ type: 'bar', query: 'd', x: 'x', y: 'y' }, { d: [{ x: 'a', y: 1 }] }));
      expect(render(showcaseSpec()).html).to.equal(first);
      expect(first).to.not.match(/\bzr\d+-/);
    });

    it('keeps every id and hover class on the page its own drawing\'s, and every reference inside its drawing', () => {
      const { html } = render(showcaseSpec());
      const all = ids(html);
      expect(all.length).to.be.greaterThan(10);
      expect(new Set(all).size).to.equal(all.length);
      for (const svg of html.match(/<svg[\s\S]*?<\/svg>/g)!) {
        const own = new Set(ids(svg));
        for (const [, ref] of svg.matchAll(/url\(#([^)]+)\)/g)) expect(own.has(ref!), ref).to.equal(true);
        const styled = [...svg.matchAll(/\.([\w-]+-cls-\d+):hover/g)].map((m) => m[1]!);
        const used = new Set([...svg.matchAll(/class="([\w-]+-cls-\d+)"/g)].map((m) => m[1]!));
        for (const name of styled) expect(used.has(name), name).to.equal(true);
        expect(styled.every((name) => !html.replace(svg, '').includes(name)), 'a hover class of another drawing').to.equal(true);
      }
    });

    it('leaves a label that looks like one of ECharts\' ids as it is', () => {
      const spec = single({ type: 'bar', query: 'd', x: 'x', y: 'y' }, { d: [{ x: 'zr12-cls-3', y: 1 }, { x: '.zr1-c0', y: 2 }] });
      const { html } = render(spec);
      expect(html).to.contain('>zr12-cls-3<');
      expect(html).to.contain('>.zr1-c0<');
    });
  });

  describe('details', () => {
    it('falls back to the given title when the spec title is blank', () => {
      const spec = { ...single({ type: 'text', text: 'x' }, {}), title: ' ' };
      expect(render(spec).html).to.contain('<h1>Fallback name</h1>');
    });

    it('links data.json only for an http(s) dashboard URL', () => {
      const spec = single({ type: 'text', text: 'x' }, {});
      expect(renderer.render(spec, {}, { ...context, url: 'https://a.example/s/' }).html).to.contain('<a href="https://a.example/s/data.json">Data (JSON)</a>');
      expect(renderer.render(spec, {}, { ...context, url: '' }).html).to.not.contain('data.json');
      expect(renderer.render(spec, {}, { ...context, url: 'javascript:alert(1)' }).html).to.not.contain('javascript:');
    });

    it('pivots long rows by the series column, adding up repeated pairs', () => {
      const rows = [
        { m: 'Jan', r: 'EU', n: 1 },
        { m: 'Jan', r: 'EU', n: 2 },
        { m: 'Jan', r: 'US', n: 5 },
        { m: 'Feb', r: 'US', n: 7 },
      ];
      const panel = panelHtml(render(single({ type: 'bar', query: 'd', x: 'm', y: 'n', series: 'r', width: 4 }, { d: rows })).html, 'p');
      for (const label of ['>Jan<', '>Feb<', '>EU<', '>US<']) expect(panel).to.contain(label);
    });

    it('reads stats from the first row: numeric strings, booleans, nulls', () => {
      const value = (v: unknown) =>
        panelHtml(render(single({ type: 'stat', query: 'd', value: 'v' }, { d: [{ v }, { v: 99 }] })).html, 'p').match(/<p class="stat-value"[^>]*>(.*?)<\/p>/)![1];
      expect(value('12345678901234')).to.equal('12.3T');
      expect(value(0.004567)).to.equal('0.00457');
      expect(value(true)).to.equal('true');
      expect(value(null)).to.equal('—');
      expect(value('n/a')).to.equal('n/a');
      expect(value(-2_500_000)).to.equal('-2.5M');
    });

    it('tolerates driver values in query rows: dates, bigints and json objects', () => {
      const spec = parseDashboardSpec({
        title: 'T',
        queries: { q: { sql: 'select 1' } },
        panels: [
          { id: 't', type: 'table', query: 'q' },
          { id: 's', type: 'stat', query: 'q', value: 'n' },
          { id: 'l', type: 'line', query: 'q', x: 'at', y: 'n' },
        ],
      });
      const rows = [
        { at: new Date('2025-03-01T00:00:00Z'), n: 12345678901n, meta: { tag: '<b>' } },
        { at: new Date('2025-03-02T00:00:00Z'), n: 5n, meta: null },
      ] as unknown as Row[];
      const { html, dataJson } = render(spec, { q: rows });
      const table = panelHtml(html, 't');
      expect(table).to.contain('<td>2025-03-01</td>');
      expect(table).to.contain('<td class="num">12345678901</td>');
      expect(table).to.contain('<td>{&quot;tag&quot;:&quot;&lt;b&gt;&quot;}</td>');
      expect(panelHtml(html, 's')).to.contain('<p class="stat-value" title="n: 12,345,678,901">12.3B</p>');
      expect(panelHtml(html, 'l')).to.contain('>2025-03-01<');
      expect(JSON.parse(dataJson).data.q[0]).to.deep.equal({ at: '2025-03-01T00:00:00.000Z', n: '12345678901', meta: { tag: '<b>' } });
    });

    it('renders every chart type at phone and desktop sizes without throwing on awkward data', () => {
      const rows = [{ x: null, y: 'abc' }, { x: true, y: null }, { x: 'c', y: '' }, { x: 1.5, y: -3 }];
      for (const type of ['line', 'bar', 'area', 'pie', 'scatter']) {
        const panel = panelHtml(render(single({ type, query: 'd', x: 'x', y: 'y', width: 12 }, { d: rows })).html, 'p');
        expect(panel, type).to.contain('<svg');
      }
    });
  });
});
