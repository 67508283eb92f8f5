import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { crowdedSpec, REGIONS, shareableSpec } from '../adapters/render-fixture.js';
import { launchChromium, SCREENSHOTS } from '../support/browser.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { startHostingServer, StubWebSessions, type HostingServer } from '../support/hosting-server.js';
import { makeUser, registry } from '../support/refresh-fixtures.js';
import { freePort } from '../support/server.js';
import { testSettings } from '../support/settings.js';

/** What the page says about its own text, measured by the browser (see `measure`). */
interface Measured {
  cut: string[];
  overlapping: string[];
  small: string[];
  brokenWords: string[];
  overflowing: string[];
  svgTexts: Record<string, string>;
  /** Which drawing of each chart shows (the class of its wrapper, or `chart` when it has one drawing). */
  drawings: Record<string, string>;
  heights: Record<string, number>;
  scrollWidth: number;
}

/**
 * Runs in the page: every visible chart text is checked against its SVG's box (cut), against the other
 * texts of its SVG (overlap, as turned rectangles, so 45° neighbours do not count), and for its drawn size;
 * table cells for words split over two lines; headings and tiles for text running past their box.
 */
function measure(): Measured {
  const visible = (el: Element) => (el as HTMLElement).getClientRects().length > 0 && getComputedStyle(el).visibility !== 'hidden';
  const out: Measured = { cut: [], overlapping: [], small: [], brokenWords: [], overflowing: [], svgTexts: {}, drawings: {}, heights: {}, scrollWidth: document.documentElement.scrollWidth };
  const corners = (t: SVGTextElement) => {
    const b = t.getBBox();
    const m = t.getScreenCTM()!;
    return [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height], [b.x, b.y + b.height]].map(([x, y]) => new DOMPoint(x, y).matrixTransform(m));
  };
  // Separating axes of two convex quadrilaterals: the smallest overlap along the edges' normals (0 when apart).
  const depth = (a: DOMPoint[], b: DOMPoint[]) => {
    let least = Infinity;
    for (const quad of [a, b]) {
      for (let i = 0; i < 4; i++) {
        const [p, q] = [quad[i]!, quad[(i + 1) % 4]!];
        const [nx, ny] = [q.y - p.y, p.x - q.x];
        const length = Math.hypot(nx, ny) || 1;
        const project = (pts: DOMPoint[]) => pts.map((pt) => (pt.x * nx + pt.y * ny) / length);
        const [pa, pb] = [project(a), project(b)];
        least = Math.min(least, Math.max(0, Math.min(Math.max(...pa), Math.max(...pb)) - Math.max(Math.min(...pa), Math.min(...pb))));
      }
    }
    return least;
  };
  for (const section of document.querySelectorAll('section.panel')) {
    out.heights[section.id] = section.getBoundingClientRect().height;
    const svg = [...section.querySelectorAll('svg.chart-svg')].find(visible) as SVGSVGElement | undefined;
    if (!svg) continue;
    out.drawings[section.id] = svg.parentElement!.className;
    const box = svg.getBoundingClientRect();
    const texts = [...svg.querySelectorAll('text')].filter((t) => t.textContent!.trim() !== '' && visible(t));
    out.svgTexts[section.id] = texts.map((t) => t.textContent!.trim()).join(' | ');
    const quads = texts.map(corners);
    texts.forEach((t, i) => {
      const name = `${section.id}: "${t.textContent}"`;
      const r = t.getBoundingClientRect();
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1 || r.left < 0 || r.right > innerWidth) out.cut.push(name);
      const size = parseFloat(getComputedStyle(t).fontSize) * svg.getScreenCTM()!.a;
      if (size < 11) out.small.push(`${name} at ${size.toFixed(1)} px`);
      for (let j = i + 1; j < texts.length; j++) if (depth(quads[i]!, quads[j]!) > 2) out.overlapping.push(`${name} and "${texts[j]!.textContent}"`);
    });
  }
  for (const cell of document.querySelectorAll('td, th')) {
    for (const node of cell.childNodes) {
      if (node.nodeType !== Node.TEXT_NODE) continue;
      for (const match of node.textContent!.matchAll(/\S+/g)) {
        const range = document.createRange();
        range.setStart(node, match.index!);
        range.setEnd(node, match.index! + match[0].length);
        const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
        if (lines.size > 1) out.brokenWords.push(match[0]);
      }
    }
  }
  for (const el of document.querySelectorAll('h1, h2, .stat-value, .stat-delta, .panel-note, .prose p')) {
    if (el.scrollWidth > el.clientWidth + 1) out.overflowing.push(el.textContent!);
  }
  return out;
}

/**
 * Issue 34, "Charts worth sharing": a spec using every panel type, published through publish_dashboard
 * on PostgreSQL and opened from the dashboards host in Chromium at desktop and phone widths, in both themes.
 */
describe('e2e: charts worth sharing, in Chromium at 1280, 900 and 390 px, light and dark (PostgreSQL)', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let app: AppContainer;
  let server: HostingServer;
  let browser: Browser;
  let url: string;

  before(async () => {
    database = await createMigratedTestDatabase();
    const port = await freePort();
    const settings = testSettings({ databaseUrl: database.url, dashboardDomain: `dash.localhost:${port}` });
    app = await buildContainer(settings, { refreshWorkers: false });
    server = await startHostingServer(app, settings, new StubWebSessions(), port);
    const { user, principal } = await makeUser(app.container, 'pro');
    for (const [path, spec] of [['subscriptions', shareableSpec()], ['crowded', crowdedSpec()]] as const) {
      const published = await registry(app.container).call(principal, 'publish_dashboard', { path, spec });
      expect(published.isError, published.content[0]!.text).to.not.equal(true);
    }
    url = `http://${user.handle}.dash.localhost:${port}/subscriptions`;
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await app?.close();
    await database?.drop();
  });

  async function open(width: number, scheme: 'light' | 'dark', at = url): Promise<{ page: Page; problems: string[] }> {
    const page = await browser.newPage({ viewport: { width, height: 900 }, colorScheme: scheme });
    const problems: string[] = [];
    page.on('console', (message) => problems.push(message.text()));
    page.on('pageerror', (error) => problems.push(error.message));
    const response = await page.goto(at, { waitUntil: 'load' });
    expect(response!.status()).to.equal(200);
    return { page, problems };
  }

  /** The tiles' deltas (text, words for screen readers, the theme's colour) and sparklines (drawn, titled), as Chromium shows them. */
  async function checkTiles(page: Page, scheme: 'light' | 'dark'): Promise<void> {
    const good = scheme === 'light' ? 'rgb(21, 128, 61)' : 'rgb(74, 222, 128)';
    const tile = async (id: string) =>
      page.locator(`#panel-${id}`).evaluate((section) => {
        const delta = section.querySelector('.stat-delta') as HTMLElement;
        const arrow = delta.querySelector('.arrow')!;
        const spark = section.querySelector('svg.sparkline') as SVGSVGElement;
        const box = spark.getBoundingClientRect();
        return {
          text: delta.textContent, colour: getComputedStyle(delta).color, arrowHidden: arrow.getAttribute('aria-hidden'),
          spoken: (delta.querySelector('.sr-only') as HTMLElement).getBoundingClientRect().width,
          sparkTitle: spark.querySelector('title')!.textContent, points: spark.querySelector('polyline')!.points.length, width: box.width, height: box.height,
        };
      });
    const mrr = await tile('mrr');
    expect(mrr).to.deep.include({ text: '▲ +1,250.5 (+7.4%) up from 17,000, an improvement', colour: good, arrowHidden: 'true', points: 6, height: 36 });
    expect(mrr.spoken, 'screen-reader words take no room').to.be.at.most(1);
    expect(mrr.width).to.be.greaterThan(100);
    expect(mrr.sparkTitle).to.equal('MRR trend (mrr, 6 values): from 14,100 to 18,250.5, low 14,100, high 18,250.5');
    const churn = await tile('churn');
    expect(churn).to.deep.include({ text: '▼ −0.3 pts down from 2.4%, an improvement', colour: good, points: 6 });
  }

  // 900 px is a tablet: full-width charts show their large drawing, half-width ones their wide one enlarged.
  for (const width of [1280, 900, 390]) {
    for (const scheme of ['light', 'dark'] as const) {
      it(`${width} px, ${scheme}: no chart text cut, overlapping or under 11 px; every label and value present; no word split`, async () => {
        const { page, problems } = await open(width, scheme);
        try {
          mkdirSync(SCREENSHOTS, { recursive: true });
          await page.screenshot({ path: path.join(SCREENSHOTS, `charts-${width > 1000 ? 'desktop' : width > 600 ? 'tablet' : 'phone'}-${scheme}.png`), fullPage: true });
          const seen = await page.evaluate(measure);
          expect(seen.cut, 'cut at an edge').to.deep.equal([]);
          expect(seen.overlapping, 'overlapping').to.deep.equal([]);
          expect(seen.small, 'under 11 px').to.deep.equal([]);
          expect(seen.brokenWords, 'words split across lines').to.deep.equal([]);
          expect(seen.overflowing, 'text past its box').to.deep.equal([]);
          expect(seen.scrollWidth).to.be.at.most(width);
          expect(problems).to.deep.equal([]);

          const texts = seen.svgTexts;
          for (const region of REGIONS) for (const word of region.split(' ')) expect(texts['panel-by-region'], region).to.contain(word);
          expect(texts['panel-by-region']).to.contain('Region').and.contain('Revenue (EUR)').and.contain('180K');
          for (let m = 1; m <= 12; m++) expect(texts['panel-trend'], `month ${m}`).to.contain(`2025-${String(m).padStart(2, '0')}-01`);
          expect(texts['panel-trend']).to.contain('conversion (right axis)').and.contain('250K').and.contain('3.5');
          expect(texts['panel-mix']).to.match(/Middle East &\s+(\|\s+)?Africa\s+(\|\s+)?9\.6%/);
          expect(texts['panel-mix']).to.contain('30%');
          expect(texts['panel-daily'], 'the last day').to.contain('2025-03-31');
          expect(texts['panel-seats']).to.contain('Seats').and.contain('Spend (EUR)').and.contain('Enterprise');
          expect(await page.locator('#panel-accounts th').allTextContents()).to.deep.equal(['Account', 'Region', 'Seats', 'ARR', 'Last change (Europe/Paris)']);
          expect(await page.locator('#panel-accounts td').allTextContents()).to.include.members(['€152,000', '€8,401', '1250']);
          expect(await page.locator('#panel-mrr .stat-value').textContent()).to.equal('18,250.5');
          await checkTiles(page, scheme);
          if (width === 1280) {
            // The tiles share a row with the pie but keep their own height.
            expect(seen.heights['panel-mrr']).to.be.lessThan(seen.heights['panel-mix']! / 2);
          }
        } finally {
          await page.close();
        }
      });
    }
  }

  it('crowded charts (twelve long slice and series names, grouped bars) grow or thin rather than cut or overlap text, from 320 to 1280 px', async () => {
    // The full-width chart's drawing at each page width: wide, then large and medium between tablet and desktop, then phone and small.
    const lines: Record<number, string> = { 1280: 'chart-wide', 1100: 'chart-large', 1000: 'chart-large', 900: 'chart-large', 700: 'chart-medium', 390: 'chart-narrow', 320: 'chart-small' };
    // Three-, four- and five-column charts: the small drawing takes over where the one before would show text under 11 px
    // (three columns on pages just over 960 px, four and five where they take half a tablet row or a small phone).
    const narrow: Record<number, [string, string, string]> = {
      1280: ['chart-wide', 'chart-wide', 'chart-wide'],
      1100: ['chart-wide', 'chart-wide', 'chart-wide'],
      1000: ['chart-small', 'chart-small', 'chart-narrow'],
      700: ['chart-wide', 'chart-small', 'chart-small'],
      390: ['chart-wide', 'chart-wide', 'chart-narrow'],
      320: ['chart-wide', 'chart-small', 'chart-small'],
    };
    for (const width of [1280, 1100, 1000, 900, 700, 390, 320]) {
      const { page, problems } = await open(width, 'light', url.replace(/subscriptions$/, 'crowded'));
      try {
        const seen = await page.evaluate(measure);
        expect([seen.cut, seen.overlapping, seen.small, problems], `${width}`).to.deep.equal([[], [], [], []]);
        expect(seen.scrollWidth, `${width}`).to.be.at.most(width);
        expect(seen.drawings['panel-lines'], `${width}`).to.equal(lines[width]);
        if (narrow[width]) {
          expect(['pie3', 'pie4', 'pie5'].map((id) => seen.drawings[`panel-${id}`]), `${width}`).to.deep.equal(narrow[width]);
          expect(seen.drawings['panel-bars4'], `${width}`).to.equal(seen.drawings['panel-pie4']);
        }
        for (const id of ['pie', 'pie3', 'pie4', 'pie5']) expect(seen.svgTexts[`panel-${id}`], `${width} ${id}`).to.contain('Antarctica').and.contain('Eastern');
      } finally {
        await page.close();
      }
    }
  });
});
