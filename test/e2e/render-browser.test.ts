import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { inflateSync } from 'node:zlib';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/browser.js';
import { EchartsPageRenderer } from '../../adapters/render/echarts-page-renderer.js';
import { CONTENT_SECURITY_POLICY } from '../../adapters/render/page-style.js';
import { showcaseSpec } from '../adapters/render-fixture.js';
import { createRequire } from 'node:module';
import { themedPage } from '../../application/hosting/page-variants.js';

const axeSource: string = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

const CHART_PANELS = ['revenue-trend', 'channels', 'orders-by-region', 'revenue-area', 'visits-signups'];

/** Share of pixels that are clearly not the white panel background, from a PNG screenshot. */
function inkRatio(png: Buffer): number {
  const { width, height, pixels, channels } = decodePng(png);
  let ink = 0;
  for (let i = 0; i < width * height; i++) {
    const [r, g, b] = [pixels[i * channels]!, pixels[i * channels + 1]!, pixels[i * channels + 2]!];
    if (r < 235 || g < 235 || b < 235) ink++;
  }
  return ink / (width * height);
}

/** Just enough PNG for Chromium screenshots: 8-bit RGB or RGBA, not interlaced. */
function decodePng(png: Buffer): { width: number; height: number; channels: number; pixels: Uint8Array } {
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  while (offset < png.length) {
    const length = png.readUInt32BE(offset);
    const type = png.toString('latin1', offset + 4, offset + 8);
    const body = png.subarray(offset + 8, offset + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      if (body[8] !== 8 || body[12] !== 0) throw new Error('unsupported PNG');
      channels = body[9] === 6 ? 4 : body[9] === 2 ? 3 : 0;
      if (!channels) throw new Error(`unsupported PNG colour type ${body[9]}`);
    } else if (type === 'IDAT') idat.push(body);
    offset += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  const pixels = new Uint8Array(height * stride);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)]!;
    for (let x = 0; x < stride; x++) {
      const value = raw[y * (stride + 1) + 1 + x]!;
      const left = x >= channels ? pixels[y * stride + x - channels]! : 0;
      const up = y > 0 ? pixels[(y - 1) * stride + x]! : 0;
      const upLeft = x >= channels && y > 0 ? pixels[(y - 1) * stride + x - channels]! : 0;
      let predictor = 0;
      if (filter === 1) predictor = left;
      else if (filter === 2) predictor = up;
      else if (filter === 3) predictor = (left + up) >> 1;
      else if (filter === 4) {
        const p = left + up - upLeft;
        const [pa, pb, pc] = [Math.abs(p - left), Math.abs(p - up), Math.abs(p - upLeft)];
        predictor = pa <= pb && pa <= pc ? left : pb <= pc ? up : upLeft;
      }
      pixels[y * stride + x] = (value + predictor) & 0xff;
    }
  }
  return { width, height, channels, pixels };
}

describe('e2e: rendered dashboard in a real browser', function () {
  this.timeout(60_000);
  let server: Server;
  let origin: string;
  let browser: Browser;
  const html = new EchartsPageRenderer().render(showcaseSpec(), {}, {
    fallbackTitle: 'unused',
    renderedAt: new Date('2025-06-01T12:30:00Z'),
    url: 'http://alice.dash.localhost:8787/sales',
  }).html;

  before(async () => {
    server = createServer((req, res) => {
      const pinned = req.url === '/dark' || req.url === '/light' ? themedPage(Buffer.from(html), req.url.slice(1) as 'dark' | 'light') : undefined;
      if (req.url === '/' || pinned) {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': CONTENT_SECURITY_POLICY });
        res.end(pinned ?? html);
      } else {
        res.writeHead(404).end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
  });

  /** axe-core's contrast rules on the page as it is drawn now: the violations' targets. */
  async function contrastViolations(page: Page): Promise<string[]> {
    await page.addScriptTag({ content: axeSource }).catch(() => page.evaluate(axeSource));
    const results = await page.evaluate(() =>
      (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> } }).axe.run(document, {
        runOnly: { type: 'rule', values: ['color-contrast', 'color-contrast-enhanced'] },
      }),
    );
    return results.violations.filter((v) => v.id === 'color-contrast').map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  }

  it('follows the reader\'s colour scheme with no script, ?theme pins one, and each theme passes axe-core\'s contrast rule', async () => {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    const background = () => page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    const axisInk = () => page.evaluate(() => getComputedStyle(document.querySelector('#panel-revenue-trend .chart-wide text')!).fill);
    try {
      const cases = [
        ['/', 'light', 'rgb(245, 247, 251)', 'rgb(71, 85, 105)'],
        ['/', 'dark', 'rgb(11, 17, 32)', 'rgb(203, 213, 225)'],
        ['/dark', 'light', 'rgb(11, 17, 32)', 'rgb(203, 213, 225)'],
        ['/light', 'dark', 'rgb(245, 247, 251)', 'rgb(71, 85, 105)'],
      ] as const;
      for (const [path, scheme, bg, ink] of cases) {
        await page.emulateMedia({ colorScheme: scheme });
        await page.goto(`${origin}${path}`, { waitUntil: 'load' });
        expect([await background(), await axisInk()], `${path} in ${scheme}`).to.deep.equal([bg, ink]);
        await page.screenshot({ path: `/tmp/dashpub-render-${path.slice(1) || 'auto'}-${scheme}.png`, fullPage: true });
        expect(await contrastViolations(page), `${path} in ${scheme}`).to.deep.equal([]);
      }
    } finally {
      await page.close();
    }
  });

  async function open(width: number): Promise<{ page: Page; requests: string[]; problems: string[] }> {
    const page = await browser.newPage({ viewport: { width, height: 900 } });
    const requests: string[] = [];
    const problems: string[] = [];
    page.on('request', (request) => requests.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(`${origin}/`, { waitUntil: 'load' });
    return { page, requests, problems };
  }

  it('draws every chart (non-blank) on a desktop-width page and fetches nothing else', async () => {
    const { page, requests, problems } = await open(1280);
    try {
      await page.screenshot({ path: '/tmp/dashpub-render-desktop.png', fullPage: true });
      for (const id of CHART_PANELS) {
        const chart = page.locator(`#panel-${id} .chart-svg:visible`);
        expect(await chart.count(), id).to.equal(1);
        const box = await chart.boundingBox();
        expect(box!.width, id).to.be.greaterThan(200);
        expect(box!.height, id).to.be.greaterThan(120);
        const ratio = inkRatio(await chart.screenshot());
        expect(ratio, `${id} ink`).to.be.greaterThan(0.02);
      }
      expect(requests.every((url) => url.startsWith(`${origin}/`)), requests.join('\n')).to.equal(true);
      expect(requests).to.have.length(1);
      expect(problems, problems.join('\n')).to.deep.equal([]);
      expect(await page.title()).to.equal('Sales overview <Q1 & Q2>');
      expect(await page.locator('h1').textContent()).to.equal('Sales overview <Q1 & Q2>');
      expect(await page.locator('script').count()).to.equal(0);
      expect(await page.locator('#panel-customers tbody tr').count()).to.equal(3);
      expect(await page.locator('#panel-customers td').first().textContent()).to.equal('Acme <script>alert(1)</script>');
      expect(await page.locator('#panel-notes a').getAttribute('href')).to.equal('https://example.com/finance');
      expect(await page.locator('#panel-notes img').count()).to.equal(0);
      expect(await page.locator('#panel-live .empty').textContent()).to.contain('No data yet');
      expect(await page.locator('#panel-total-revenue .stat-value').textContent()).to.equal('1.2M');
      // Two panels of width 6 share a row on a desktop.
      const a = await page.locator('#panel-orders-by-region').boundingBox();
      const b = await page.locator('#panel-revenue-area').boundingBox();
      expect(Math.round(a!.y)).to.equal(Math.round(b!.y));
    } finally {
      await page.close();
    }
  });

  it('stays within a 375px-wide phone screen, one column, charts redrawn at phone size', async () => {
    const { page, requests, problems } = await open(375);
    try {
      await page.screenshot({ path: '/tmp/dashpub-render-mobile.png', fullPage: true });
      const scrollWidth = await page.evaluate(() => document.documentElement.scrollWidth);
      expect(scrollWidth).to.be.at.most(375);
      for (const id of CHART_PANELS) {
        const chart = page.locator(`#panel-${id} .chart-svg:visible`);
        expect(await chart.count(), id).to.equal(1);
        const box = await chart.boundingBox();
        expect(box!.x, id).to.be.at.least(0);
        expect(box!.x + box!.width, id).to.be.at.most(375);
        expect(inkRatio(await chart.screenshot()), `${id} ink`).to.be.greaterThan(0.02);
      }
      const a = await page.locator('#panel-orders-by-region').boundingBox();
      const b = await page.locator('#panel-revenue-area').boundingBox();
      expect(b!.y).to.be.greaterThan(a!.y + a!.height - 1);
      expect(requests.every((url) => url.startsWith(`${origin}/`))).to.equal(true);
      expect(problems).to.deep.equal([]);
    } finally {
      await page.close();
    }
  });
});
