import { expect } from 'chai';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { launchChromium, openPage } from '../support/browser.js';
import { AdminAccounts } from '../../application/accounts/admin-accounts.js';
import { startServer, type RunningServer } from '../../shells/koa/server.js';
import { DASHBOARD_VIEW_TOOLS, MCP_APP_MIME_TYPE } from '../../shells/koa/mcp/ui/dashboard-view.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { request } from '../support/http.js';
import { pngStats } from '../support/image-fixtures.js';
import { installMcpAppHarness, type McpAppHarness } from '../support/mcp-app-host.js';
import { freePort } from '../support/server.js';
import { testSettings } from '../support/settings.js';
import { mintAccessToken } from '../support/tokens.js';


const VIEW_URI = 'ui://service/dashboard.html';

const SALES_SPEC = {
  title: 'Sales preview',
  data: {
    revenue: ['2025-01-01', '2025-02-01', '2025-03-01', '2025-04-01', '2025-05-01', '2025-06-01'].map((month, i) => ({ month, revenue: 40_000 + i * 2_500 })),
    channels: [
      { channel: 'Search', share: 44 },
      { channel: 'Direct', share: 31 },
      { channel: 'Email', share: 25 },
    ],
    totals: [{ revenue: 1_234_567 }],
  },
  panels: [
    { id: 'total', type: 'stat', title: 'Revenue', query: 'totals', value: 'revenue' },
    { id: 'trend', type: 'line', title: 'Revenue by month', query: 'revenue', x: 'month', y: 'revenue', width: 8 },
    { id: 'channels', type: 'pie', title: 'Channels', query: 'channels', x: 'channel', y: 'share', width: 4 },
  ],
};

/** A label that would run and send if it were ever markup: the view must show it as text. */
const HOSTILE_LABEL = `Shortest <b>slug</b> <img src=x onerror="parent.postMessage({jsonrpc:'2.0',id:997,method:'ui/open-link',params:{url:'https://evil.example.com/label'}},'*')">`;

/** The owner's own dashboards on `self`, counted for a select listed by a query, a date range and a number. */
const COUNTS_SPEC = {
  title: 'Counts',
  queries: {
    n: {
      sql: `SELECT count(*) AS dashboards FROM dashboards
             WHERE visibility = :vis AND created_at::date BETWEEN :period.from AND :period.to AND length(slug) >= :min_len`,
    },
    kinds: { sql: `SELECT unnest(ARRAY['public', 'private']) AS kind` },
  },
  params: [
    { id: 'vis', type: 'select', label: 'Visibility', options: { query: 'kinds' }, default: 'public', required: true },
    { id: 'period', type: 'date_range', label: 'Created', default: '2000-01-01..2100-01-01' },
    { id: 'min_len', type: 'number', label: HOSTILE_LABEL, default: 1, min: 0 },
  ],
  panels: [{ id: 'count', type: 'stat', title: 'Dashboards', query: 'n', value: 'dashboards' }],
};

/** A private static page that tries everything a preview must not do: scripts, handlers, fetches. */
const DIARY_PAGE = `<!doctype html><html><head><title>Diary</title>
<style>body{background:#fffbe6}.note{color:#7a4b00}@import url("https://fonts.example.com/x.css");</style>
<link rel="stylesheet" href="https://fonts.example.com/x.css"></head>
<body><h1>Field diary</h1><p class="note" id="diary-text">Three entries, all private.</p>
<img id="pixel" src="https://tracker.example.com/pixel.gif" alt="pixel" onerror="parent.postMessage({jsonrpc:'2.0',id:998,method:'ui/open-link',params:{url:'https://evil.example.com/onerror'}},'*')">
<p><a id="relative" href="diary/data.json" target="_blank">data</a> <a id="js" href="javascript:parent.postMessage(1,'*')">js</a></p>
<form action="https://evil.example.com/post" method="post"><button id="send">Send</button></form>
<script>parent.postMessage({jsonrpc:'2.0',id:999,method:'ui/open-link',params:{url:'https://evil.example.com/script'}},'*');</script>
</body></html>`;

describe('e2e: the MCP Apps dashboard view in Chromium, hosted by the ext-apps AppBridge', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let server: RunningServer;
  let browser: Browser;
  let port: number;
  let token: string;
  let apiOrigin: string;
  let dashboardOrigin: string;

  const rpc = async (method: string, params?: unknown) => {
    const res = await request({
      url: `http://127.0.0.1:${port}/mcp`,
      host: `localhost:${port}`,
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method, params },
    });
    return res.json();
  };

  before(async () => {
    database = await createMigratedTestDatabase();
    port = await freePort();
    apiOrigin = `http://localhost:${port}`;
    dashboardOrigin = `http://vera.dash.localhost:${port}`;
    server = await startServer(
      testSettings({
        port,
        baseUrl: apiOrigin,
        appUrl: `http://app.localhost:${port}`,
        dashboardDomain: `dash.localhost:${port}`,
        databaseUrl: database.url,
        // `self` queries get room for a loaded machine: the parameter tests wait for a draw, not a deadline.
        selfQueryTimeoutSeconds: 60,
      }),
    );
    const vera = await server.app.container.get(AdminAccounts).addUser({ handle: 'vera', email: 'vera@example.com' });
    token = (await mintAccessToken(server.app.container, { userId: vera.id })).access_token;
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await database?.drop();
  });

  describe('over MCP (what every client sees)', () => {
    it('declares the view on exactly the four one-dashboard tools, under both keys', async () => {
      const { result } = await rpc('tools/list');
      const declaring = result.tools.filter((t: any) => t._meta !== undefined);
      expect(declaring.map((t: any) => t.name).sort()).to.deep.equal([...DASHBOARD_VIEW_TOOLS].sort());
      for (const tool of declaring) expect(tool._meta).to.deep.equal({ ui: { resourceUri: VIEW_URI }, 'ui/resourceUri': VIEW_URI });
    });

    it('serves the view through resources/read as one self-contained mcp-app document', async () => {
      const { result } = await rpc('resources/read', { uri: VIEW_URI });
      expect(result.contents).to.have.length(1);
      const [view] = result.contents;
      expect(view).to.have.keys('uri', 'mimeType', 'text', '_meta');
      expect(view.uri).to.equal(VIEW_URI);
      expect(view.mimeType).to.equal(MCP_APP_MIME_TYPE);
      expect(view._meta).to.deep.equal({ ui: { prefersBorder: true } });
      expect(view.text).to.match(/^<!doctype html>/);
      // Nothing external and nothing that reaches the network on its own.
      expect(view.text).to.not.match(/<style>[^<]*(@import|url\()/);
      for (const forbidden of [' src=', '<link', 'url(', 'fetch(', 'XMLHttpRequest', 'WebSocket', 'EventSource', '<iframe']) {
        expect(view.text, forbidden).to.not.include(forbidden);
      }
    });

    it('keeps initialize, resources/list and resources/templates/list as they were', async () => {
      const init = await rpc('initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } });
      expect(init.result.capabilities).to.deep.equal({ tools: { listChanged: false }, prompts: { listChanged: false }, resources: { listChanged: false } });
      const templates = await rpc('resources/templates/list');
      expect(templates.result.resourceTemplates.map((t: any) => t.uriTemplate)).to.deep.equal(['service://{handle}/{slug}']);
      const list = await rpc('resources/list');
      expect(list.result.resources.map((r: any) => r.uri)).to.not.include(VIEW_URI);
      expect((await rpc('resources/read', { uri: 'ui://service/other.html' })).error.code).to.equal(-32602);
    });
  });

  describe('in the browser', () => {
    let context: BrowserContext;
    let page: Page;
    let harness: McpAppHarness;
    const navigations: string[] = [];

    beforeEach(async () => {
      ({ context, page } = await openPage(browser, { viewport: { width: 900, height: 900 } }));
      navigations.length = 0;
      page.on('framenavigated', (frame) => navigations.push(frame.url()));
      harness = await installMcpAppHarness(page, apiOrigin, `http://sandbox.localhost:${port}`);
    });

    afterEach(async () => {
      await context?.close();
    });

    /** Nothing left the view: no CSP violation, no popup, no navigation, no request the host did not make. */
    const expectContained = () => {
      expect(harness.violations).to.deep.equal([]);
      expect(harness.popups).to.deep.equal([]);
      for (const url of navigations) expect([harness.hostUrl, harness.sandboxUrl, 'about:srcdoc', 'about:blank'], url).to.include(url);
      for (const url of harness.requests) {
        const expected = url.startsWith(`${apiOrigin}/__harness/`) || url === `${apiOrigin}/mcp` || url === harness.sandboxUrl;
        expect(expected, url).to.equal(true);
      }
    };

    const showTool = async (name: string, args: Record<string, unknown>, theme: 'light' | 'dark' = 'light') => {
      const shown = await harness.runTool(token, name, args, theme);
      const view = await harness.viewFrame();
      return { ...shown, view };
    };

    const waitForText = (view: Frame, selector: string, text: string) =>
      view.waitForFunction(([s, t]) => ((globalThis as any).document.querySelector(s)?.textContent ?? '').includes(t), [selector, text] as const);

    it('initialises, then shows a published spec dashboard: name, owner, version and its SVG charts', async () => {
      const { result, view, uri, mimeType, meta } = await showTool('publish_dashboard', { path: 'sales', spec: SALES_SPEC, name: 'Sales' });
      expect([uri, mimeType, meta]).to.deep.equal([VIEW_URI, MCP_APP_MIME_TYPE, { ui: { prefersBorder: true } }]);
      expect(result.isError).to.equal(undefined);
      const versionId: string = result.structuredContent.version_id;
      await waitForText(view, '#status', 'Preview of the published page');
      expect(await view.locator('#name').textContent()).to.equal('Sales');
      expect(await view.locator('#meta').textContent()).to.equal(`by vera · version ${versionId.slice(0, 8)} · public`);
      expect(await view.locator('#url').textContent()).to.equal(`${dashboardOrigin}/sales`);
      // The rendered page itself, from resources/read through the bridge: its title, stat and chart SVGs.
      expect(await view.locator('#preview h1').textContent()).to.equal('Sales preview');
      expect(await view.locator('#preview .stat-value').textContent()).to.equal('1.2M');
      expect(await view.locator('#preview svg').count()).to.be.greaterThanOrEqual(2);
      expect(await view.locator('#preview svg path').count()).to.be.greaterThan(0);

      const recorded = await harness.recorded();
      expect(recorded.initialized).to.equal(1);
      expect(recorded.sizes.length).to.be.greaterThan(0);
      const height = await view.evaluate(() => Math.ceil((globalThis as any).document.getElementById('app').getBoundingClientRect().height));
      expect(recorded.sizes.at(-1)).to.equal(height);
      expect(height).to.be.greaterThan(300);
      expectContained();
    });

    it('opens the canonical URL from its own button only; a link in the preview sends nothing', async () => {
      const { view } = await showTool('get_dashboard', { slug: 'sales' });
      await waitForText(view, '#status', 'Preview of the published page');
      // The link first: had it asked the host, its ui/open-link would arrive before the button's.
      await view.locator('#preview a', { hasText: 'Data (JSON)' }).click();
      await view.locator('#open').click();
      await page.waitForFunction(() => (globalThis as any).harness.openedLinks.length >= 1);
      expect((await harness.recorded()).openedLinks).to.deep.equal([`${dashboardOrigin}/sales`]);
      expect(page.url()).to.equal(harness.hostUrl);
      expectContained();
    });

    it('previews a private static page without a cookie, and none of its scripts, handlers or fetches run', async () => {
      const published = await harness.runTool(token, 'publish_dashboard', { path: 'diary', body: DIARY_PAGE, name: 'Diary', visibility: 'private' });
      expect(published.result.isError).to.equal(undefined);
      const { view } = await showTool('get_dashboard', { slug: 'diary' });
      await waitForText(view, '#status', 'Preview of the published page');
      expect(await view.locator('#meta').textContent()).to.match(/^by vera · version [0-9a-f]{8} · private$/);
      expect(await view.locator('#preview #diary-text').textContent()).to.equal('Three entries, all private.');
      // Its stylesheet applies inside the preview, its body rule to the body's stand-in.
      expect(await view.locator('#preview #diary-text').evaluate((n) => (globalThis as any).getComputedStyle(n).color)).to.equal('rgb(122, 75, 0)');
      expect(await view.locator('#preview .dp-body').evaluate((n) => (globalThis as any).getComputedStyle(n).backgroundColor)).to.equal('rgb(255, 251, 230)');
      expect(await view.locator('#preview script').count()).to.equal(0);
      expect(await view.locator('#preview link').count()).to.equal(0);
      expect(await view.locator('#preview #pixel').getAttribute('src')).to.equal(null);
      expect(await view.locator('#preview #pixel').getAttribute('onerror')).to.equal(null);

      await view.locator('#preview #js').click();
      await view.locator('#preview #send').click();
      await view.locator('#preview #relative').click({ button: 'middle' });
      await view.locator('#preview #relative').click();
      await view.locator('#open').click();
      await page.waitForFunction(() => (globalThis as any).harness.openedLinks.length >= 1);
      // The page's script and onerror handler would have asked for evil.example.com; its links ask for nothing.
      expect((await harness.recorded()).openedLinks).to.deep.equal([`${dashboardOrigin}/diary`]);
      expectContained();
    });

    it('shows an earlier version from get_dashboard_version, with the name asked of get_dashboard, and a restore', async () => {
      const first = (await harness.runTool(token, 'publish_dashboard', { path: 'notes', body: '<p id="v">first words</p>', name: 'Notes' })).result;
      await harness.runTool(token, 'publish_dashboard', { path: 'notes', body: '<p id="v">second words</p>' });
      const firstId: string = first.structuredContent.version_id;

      const { view } = await showTool('get_dashboard_version', { slug: 'notes', version_id: firstId });
      await waitForText(view, '#status', 'Preview of version #');
      expect(await view.locator('#preview #v').textContent()).to.equal('first words');
      await waitForText(view, '#name', 'Notes');
      expect(await view.locator('#meta').textContent()).to.match(new RegExp(`^by vera · version #\\d+ \\(${firstId.slice(0, 8)}\\) · public$`));

      const restored = await showTool('restore_dashboard_version', { slug: 'notes', version_id: firstId });
      await waitForText(restored.view, '#status', 'Preview of the published page');
      expect(await restored.view.locator('#preview #v').textContent()).to.equal('first words');
      const newId: string = JSON.parse(restored.result.content[0].text.split('BEGIN_JSON\n')[1].split('\nEND_JSON')[0]).version_id;
      expect(await restored.view.locator('#meta').textContent()).to.equal(`by vera · version ${newId.slice(0, 8)} · public`);
      expectContained();
    });

    it('shows the refusal text of a refused call', async () => {
      const { result, view } = await showTool('get_dashboard', { slug: 'no-such-dashboard' });
      expect(result.isError).to.equal(true);
      await view.waitForSelector('#refusal:not([hidden])');
      expect(await view.locator('#refusal').textContent()).to.equal(result.content[0].text);
      expect(await view.locator('#head').isHidden()).to.equal(true);
      expect(await view.locator('#preview').isHidden()).to.equal(true);
      expectContained();
    });

    it('fits a phone in dark mode and follows a theme change', async () => {
      await page.setViewportSize({ width: 390, height: 844 });
      await page.evaluate(() => (globalThis as any).document.body.classList.add('dark'));
      const { view } = await showTool('get_dashboard', { slug: 'sales' }, 'dark');
      await waitForText(view, '#status', 'Preview of the published page');
      expect(await view.evaluate(() => (globalThis as any).document.documentElement.getAttribute('data-theme'))).to.equal('dark');
      expect(await view.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.body).backgroundColor)).to.equal('rgb(21, 24, 30)');
      // No horizontal scrolling at phone width; the button spans the width.
      const widths = await view.evaluate(() => {
        const d = (globalThis as any).document;
        return { scroll: d.documentElement.scrollWidth, client: d.documentElement.clientWidth, button: d.getElementById('open').getBoundingClientRect().width };
      });
      expect(widths.scroll).to.be.at.most(widths.client);
      expect(widths.button).to.be.greaterThan(widths.client - 40);
      await page.waitForTimeout(200);
      const png = await page.screenshot({ fullPage: false });
      if (process.env.MCP_APP_SCREENSHOT) (await import('node:fs')).writeFileSync(process.env.MCP_APP_SCREENSHOT, png);

      await harness.setTheme('light');
      await view.waitForFunction(() => (globalThis as any).document.documentElement.getAttribute('data-theme') === 'light');
      expect(await view.evaluate(() => (globalThis as any).getComputedStyle((globalThis as any).document.body).backgroundColor)).to.equal('rgb(255, 255, 255)');
      expectContained();
    });

    it('shows the dashboard\'s image in the host\'s theme while the live preview loads, then the preview in its place', async () => {
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const reads: string[] = [];
      // The page's read waits until the image has been seen: the order a slow page would give.
      await page.route(`${apiOrigin}/mcp`, async (route) => {
        let uri: unknown;
        try {
          const message = JSON.parse(route.request().postData() ?? 'null');
          if (message?.method === 'resources/read') uri = message.params?.uri;
        } catch {
          // not JSON (a GET for the stream): passed on as it is
        }
        if (typeof uri === 'string') reads.push(uri);
        if (uri === 'service://vera/sales') await held;
        await route.continue();
      });
      const { view } = await showTool('get_dashboard', { slug: 'sales' }, 'dark');
      await view.waitForSelector('#shot:not([hidden]) img');
      const shot = () => view.locator('#shot img').evaluate((img: any) => img.decode().then(() => ({ alt: img.alt, width: img.naturalWidth, src: img.src.slice(0, 22) })));
      expect(await shot()).to.deep.equal({ alt: 'Sales', width: 1200, src: 'data:image/png;base64,' });
      expect(reads).to.include('service://vera/_image/sales.png?theme=dark');
      expect(await view.locator('#preview').isHidden()).to.equal(true);
      expect(await view.locator('#status').textContent()).to.equal('The dashboard\u2019s image; the live preview is loading\u2026');
      const dark = await view.locator('#shot img').getAttribute('src');

      // The host turns light while the page is still loading: the image follows.
      await harness.setTheme('light');
      await view.waitForFunction((before) => (globalThis as any).document.querySelector('#shot img')?.getAttribute('src') !== before, dark);
      expect(reads).to.include('service://vera/_image/sales.png');
      expect((await shot()).width).to.equal(1200);

      release();
      await waitForText(view, '#status', 'Preview of the published page');
      expect(await view.locator('#shot').isHidden()).to.equal(true);
      expect(await view.locator('#shot img').count()).to.equal(0);
      expect(await view.locator('#preview h1').textContent()).to.equal('Sales preview');
      expectContained();
    });

    it('shows a spec\'s parameters as its own controls; chosen values read the page with the URL\'s query string', async () => {
      const reads: string[] = [];
      await page.route(`${apiOrigin}/mcp`, async (route) => {
        try {
          const message = JSON.parse(route.request().postData() ?? 'null');
          if (message?.method === 'resources/read') reads.push(message.params?.uri);
        } catch {
          // not JSON (a GET for the stream): passed on as it is
        }
        await route.continue();
      });
      // Public ones for the defaults to count (at least two), a private one with a long slug for the values chosen.
      for (const path of ['open-one', 'open-two']) await harness.runTool(token, 'publish_dashboard', { path, body: '<p>open</p>' });
      await harness.runTool(token, 'publish_dashboard', { path: 'secret-notes', body: '<p>kept</p>', name: 'Secret notes', visibility: 'private' });
      const published = await harness.runTool(token, 'publish_dashboard', { path: 'counts', spec: COUNTS_SPEC, name: 'Counts' });
      expect(published.result.isError, JSON.stringify(published.result.content)).to.equal(undefined);
      const { view } = await showTool('get_dashboard', { slug: 'counts' });
      await waitForText(view, '#status', 'Preview of the published page');
      const tile = view.locator('#preview .stat-value');
      const defaults = Number(await tile.textContent());
      expect(defaults).to.be.at.least(2);

      // One labelled control per parameter, with the page form's types, options (listed by a query) and defaults.
      const params = view.locator('#params');
      expect(await params.isVisible()).to.equal(true);
      expect(await params.getByLabel('Visibility').inputValue()).to.equal('public');
      expect(await params.locator('select option').allTextContents()).to.deep.equal(['public', 'private']);
      expect(await params.getByLabel('Created from').inputValue()).to.equal('2000-01-01');
      expect(await params.getByLabel('Created to').getAttribute('type')).to.equal('date');
      const number = params.locator('input[type="number"]');
      expect([await number.inputValue(), await number.getAttribute('min')]).to.deep.equal(['1', '0']);
      // The label arrives as text, never as markup; the page's own form is not in the preview.
      expect(await params.locator('.param-name').allTextContents()).to.deep.equal(['Visibility', 'Created', HOSTILE_LABEL]);
      expect(await params.locator('img, b').count()).to.equal(0);
      expect(await view.locator('#preview select, #preview input, #preview button').count()).to.equal(0);

      await params.getByLabel('Visibility').selectOption('private');
      await number.fill('8');
      await params.getByRole('button', { name: 'Apply' }).click();
      await waitForText(view, '#status', 'for the chosen values');
      const query = 'vis=private&period=2000-01-01..2100-01-01&min_len=8';
      expect(reads).to.include(`service://vera/counts?${query}`);
      // Private dashboards with slugs of 8 or more characters: "secret-notes" alone.
      expect(await tile.textContent()).to.equal('1');
      expect([await params.getByRole('button', { name: 'Apply' }).isEnabled(), await view.locator('#preview').getAttribute('aria-busy')]).to.deep.equal([true, 'false']);
      expect(await view.locator('#url').textContent()).to.equal(`${dashboardOrigin}/counts?${query}`);
      await view.locator('#open').click();
      await page.waitForFunction(() => (globalThis as any).harness.openedLinks.length >= 1);
      expect((await harness.recorded()).openedLinks).to.deep.equal([`${dashboardOrigin}/counts?${query}`]);

      // A value the host refuses: the page it answers shows the defaults and its notice, Enter applies.
      await params.getByLabel('Created from').fill('2100-01-01');
      await params.getByLabel('Created to').fill('2000-01-01');
      await number.press('Enter');
      await view.locator('#preview .notice').waitFor();
      expect(await view.locator('#preview .notice').allTextContents()).to.deep.equal([
        'Created: "2100-01-01..2000-01-01" ends before it starts; showing the default',
      ]);
      expect(Number(await tile.textContent())).to.equal(1);
      expect((await harness.recorded()).openedLinks).to.have.length(1);

      // On a phone the controls stack at full width, with no horizontal scrolling.
      await page.setViewportSize({ width: 390, height: 844 });
      await view.waitForFunction(() => (globalThis as any).document.getElementById('apply').getBoundingClientRect().width > 300);
      const widths = await view.evaluate(() => {
        const d = (globalThis as any).document;
        return { scroll: d.documentElement.scrollWidth, client: d.documentElement.clientWidth, select: d.querySelector('#params select').getBoundingClientRect().width };
      });
      expect(widths.scroll).to.be.at.most(widths.client);
      expect(widths.select).to.be.greaterThan(widths.client - 60);
      if (process.env.MCP_APP_PARAMS_SCREENSHOT) (await import('node:fs')).writeFileSync(process.env.MCP_APP_PARAMS_SCREENSHOT, await page.screenshot({ fullPage: true }));
      expectContained();
    });

    it('would notice a CSP violation: the listener and the report-uri both see one made on purpose', async () => {
      const { view } = await showTool('get_dashboard', { slug: 'sales' });
      await waitForText(view, '#status', 'Preview of the published page');
      expect(harness.violations).to.deep.equal([]);
      await view.evaluate(() => {
        const d = (globalThis as any).document;
        const img = d.createElement('img');
        img.src = 'http://localhost:9/blocked.png';
        d.body.appendChild(img);
      });
      await page.waitForFunction(() => true);
      for (let i = 0; i < 100 && (harness.violations.length === 0 || harness.reports.length === 0); i++) await page.waitForTimeout(50);
      expect(harness.violations.map((v) => [v.directive, v.blocked])).to.deep.equal([['img-src', 'http://localhost:9/blocked.png']]);
      // Every report the CSP sent during this whole test is this one.
      expect(harness.reports).to.have.length(1);
      expect(harness.reports[0]).to.include('blocked.png');
    });
  });

  describe('the page and image resources with the page\'s query string (decision 0283)', () => {
    const read = async (bearer: string, uri: string) => (await request({
      url: `http://127.0.0.1:${port}/mcp`,
      host: `localhost:${port}`,
      method: 'POST',
      headers: { authorization: `Bearer ${bearer}`, accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri } },
    })).json();
    const statOf = (html: string) => /class="stat-value"[^>]*>([^<]*)</.exec(html)?.[1];

    before(async () => {
      const published = await rpc('tools/call', { name: 'publish_dashboard', arguments: { path: 'tally', spec: COUNTS_SPEC } });
      expect(published.result.isError, JSON.stringify(published.result.content)).to.equal(undefined);
      await rpc('tools/call', { name: 'publish_dashboard', arguments: { path: 'hidden-tally-notes', body: '<p>x</p>', visibility: 'private' } });
    });

    it('draws the page for the values in the URI, as the host draws its URL, with the host\'s notices', async () => {
      const plain = (await read(token, 'service://vera/tally')).result.contents[0];
      expect(plain.text).to.contain('<form class="params"');
      const uri = 'service://vera/tally?vis=private&min_len=12';
      const chosen = (await read(token, uri)).result.contents[0];
      expect(chosen).to.include({ uri, mimeType: 'text/html' });
      // Private dashboards with slugs of 12 or more characters, counted on `self`: at least the one published above.
      expect(Number(statOf(chosen.text))).to.be.at.least(1);
      expect(statOf(chosen.text)).to.not.equal(statOf(plain.text));
      const refused = (await read(token, 'service://vera/tally?vis=secret')).result.contents[0].text;
      expect(refused).to.contain('<p class="notice" role="status">Visibility: &quot;secret&quot; is not one of the options; showing the default</p>');
      expect(statOf(refused)).to.equal(statOf(plain.text));
      // A body page takes no values: its bytes, whatever the query.
      expect((await read(token, 'service://vera/hidden-tally-notes?vis=private')).result.contents[0].text).to.equal('<p>x</p>');
    });

    it('draws the image for the same values, in either theme', async () => {
      const blob = async (uri: string) => (await read(token, uri)).result.contents[0].blob as string;
      const plain = await blob('service://vera/_image/tally.png');
      const chosen = await blob('service://vera/_image/tally.png?vis=private&min_len=12');
      expect(chosen).to.not.equal(plain);
      const dark = pngStats(Buffer.from(await blob('service://vera/_image/tally.png?vis=private&min_len=12&theme=dark'), 'base64'));
      expect(dark.mean).to.be.lessThan(pngStats(Buffer.from(chosen, 'base64')).mean);
    });

    it('answers another user -32002, and refuses a query the host would not read with -32602', async () => {
      const wren = await server.app.container.get(AdminAccounts).addUser({ handle: 'wren', email: 'wren@example.com' });
      const wrenToken = (await mintAccessToken(server.app.container, { userId: wren.id })).access_token;
      for (const uri of ['service://vera/tally?vis=private', 'service://vera/_image/tally.png?vis=private']) {
        expect((await read(wrenToken, uri)).error, uri).to.deep.equal({ code: -32002, message: `Resource not found: ${uri}`, data: { uri } });
      }
      const malformed = [
        'service://vera/tally?', 'service://vera/tally?vis=<b>', 'service://vera/tally?vis=a b', 'service://vera/tally?vis="x"',
        'service://vera/tally/x?vis=a', 'service://vera/_image/tally.png?theme=dark&theme=light', 'service://vera/_image/tally.png?vis=a&theme=sepia',
        `service://vera/tally?vis=${'a'.repeat(5000)}`,
      ];
      for (const uri of malformed) expect((await read(token, uri)).error?.code, uri).to.equal(-32602);
    });
  });

  describe('the image resource the view reads (decision 0232)', () => {
    const read = async (bearer: string, uri: string) => {
      const res = await request({
        url: `http://127.0.0.1:${port}/mcp`,
        host: `localhost:${port}`,
        method: 'POST',
        headers: { authorization: `Bearer ${bearer}`, accept: 'application/json, text/event-stream' },
        body: { jsonrpc: '2.0', id: 1, method: 'resources/read', params: { uri } },
      });
      return res.json();
    };

    it('answers the owner each dashboard\'s PNG in either theme, a private body page\'s card too', async () => {
      const light = (await read(token, 'service://vera/_image/sales.png')).result.contents;
      expect(light).to.have.length(1);
      expect(light[0]).to.include({ uri: 'service://vera/_image/sales.png', mimeType: 'image/png' });
      const lightStats = pngStats(Buffer.from(light[0].blob, 'base64'));
      expect(lightStats.width).to.equal(1200);
      expect(lightStats.variance).to.be.greaterThan(50);
      const dark = (await read(token, 'service://vera/_image/sales.png?theme=dark')).result.contents[0];
      expect(pngStats(Buffer.from(dark.blob, 'base64')).mean).to.be.lessThan(lightStats.mean);
      const card = pngStats(Buffer.from((await read(token, 'service://vera/_image/diary.png')).result.contents[0].blob, 'base64'));
      expect([card.width, card.height]).to.deep.equal([1200, 630]);
    });

    it('answers another user the same -32002 as a missing dashboard, and refuses a malformed image URI with -32602', async () => {
      const walt = await server.app.container.get(AdminAccounts).addUser({ handle: 'walt', email: 'walt@example.com' });
      const waltToken = (await mintAccessToken(server.app.container, { userId: walt.id })).access_token;
      for (const uri of ['service://vera/_image/diary.png', 'service://vera/_image/sales.png?theme=dark', 'service://walt/_image/nope.png']) {
        expect((await read(waltToken, uri)).error, uri).to.deep.equal({ code: -32002, message: `Resource not found: ${uri}`, data: { uri } });
      }
      for (const uri of ['service://vera/_image/SALES.png', 'service://vera/_image/sales.png?theme=evil', 'service://vera/_image/../sales.png', 'service://vera/_image/sales.jpg', 'service://vera/_image/sales/total.png', 'other://vera/_image/sales.png']) {
        expect((await read(token, uri)).error?.code, uri).to.equal(-32602);
      }
    });
  });
});
