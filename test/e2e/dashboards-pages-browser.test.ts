import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import pg from 'pg';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, openPage, SCREENSHOTS, signUpInBrowser } from '../support/browser.js';
import { AccountStore } from '../../application/ports/account-store.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { hostRequest } from '../support/hosting-http.js';
import { csrfOf, WebClient } from '../support/oauth-server.js';
import { startFullServer } from '../support/server.js';
import { mintAccessToken } from '../support/tokens.js';
import { aWorkspace } from '../support/mothers.js';

const axeSource: string = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
const PASSWORD = 'a long enough password';

type CallResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

/**
 * The owner's dashboards pages in Chromium, on PostgreSQL: a person signs up, an AI client publishes
 * for them through the MCP endpoint with a real token, and everything else happens in the browser:
 * find, restore, rename (old URL 301), visibility, refresh, delete. Other people get the missing page.
 * Every page is checked with axe-core and photographed at desktop and phone width.
 */
describe('e2e: dashboards pages in a real browser', function () {
  this.timeout(90_000);
  let database: TestDatabase;
  let server: Awaited<ReturnType<typeof startFullServer>>;
  let browser: Browser;
  let page: Page;
  let app: string;
  let personal: Client;
  let team: Client;

  const connect = async (token: string) => {
    const transport = new StreamableHTTPClientTransport(new URL(`${server.settings.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    const client = new Client({ name: 'dashboards-pages-e2e', version: '1.0.0' });
    await client.connect(transport);
    return client;
  };
  const call = async (client: Client, name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallResult;
    return { ...result, text: result.content[0]!.text };
  };
  const ok = async (client: Client, name: string, args: Record<string, unknown>) => {
    const result = await call(client, name, args);
    expect(result.isError, `${name}: ${result.text}`).to.not.equal(true);
    return result;
  };
  const jsonOf = (text: string): Record<string, any> => JSON.parse(/\nBEGIN_JSON\n([\s\S]*)\nEND_JSON$/.exec(text)![1]!);

  /** The dashboards host caches metadata for about a second: poll until the status is `status`. */
  async function hostStatus(host: string, pathname: string, status: number) {
    const deadline = Date.now() + 5_000;
    let res = await hostRequest(server.port, host, pathname);
    while (res.status !== status && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      res = await hostRequest(server.port, host, pathname);
    }
    expect(res.status, `${host}${pathname}`).to.equal(status);
    return res;
  }

  /** No serious or critical axe-core violation on the page as it is now. */
  async function accessible(name: string) {
    await page.evaluate(axeSource);
    const results = await page.evaluate(() =>
      (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }> }> } }).axe.run(document, {
        iframes: false,
        runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
      }),
    );
    const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
    expect(bad.map((v) => `${v.id} (${v.impact}): ${JSON.stringify(v.nodes.map((n) => n.target))}`), `axe on ${name}`).to.deep.equal([]);
  }

  /** A full-page screenshot at desktop and phone width, then back to desktop. */
  async function photograph(name: string) {
    for (const [suffix, width] of [['desktop', 1280], ['phone', 390]] as const) {
      await page.setViewportSize({ width, height: 900 });
      await page.screenshot({ path: path.join(SCREENSHOTS, `${name}-${suffix}.png`), fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  /** axe in both colour schemes (the stylesheet has a dark one), then the screenshots in the light one. */
  async function check(name: string) {
    await page.emulateMedia({ colorScheme: 'dark' });
    await accessible(`${name} (dark)`);
    await page.emulateMedia({ colorScheme: 'light' });
    await accessible(name);
    await photograph(name);
  }

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const launched = launchChromium();
    database = await createMigratedTestDatabase();
    server = await startFullServer({ DATABASE_URL: database.url, SECRET_KEY: 'dashboards-pages-secret', REDIS_URL: '' });
    app = server.settings.appUrl;
    browser = await launched;
    ({ page } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
  });

  after(async () => {
    await personal?.close();
    await team?.close();
    await browser?.close();
    await server?.close();
    await database?.drop();
  });

  it('signs up, and an AI client publishes a private, a refreshable and a workspace dashboard through MCP', async () => {
    await signUpInBrowser(page, app, { handle: 'ada', email: 'ada@example.com', password: PASSWORD });

    const container = server.server.app.container;
    const accounts = container.get<AccountStore>(AccountStore);
    const ada = (await accounts.findUserByHandle('ada'))!;
    const acme = await aWorkspace(accounts, { slug: 'acme', name: 'Acme Analytics' });
    await accounts.addMember(acme.id, ada.id, 'admin');
    personal = await connect((await mintAccessToken(container, { userId: ada.id, lock: { kind: 'personal' } })).access_token);
    team = await connect((await mintAccessToken(container, { userId: ada.id, lock: { kind: 'workspace', workspaceId: acme.id } })).access_token);

    const spec = {
      title: 'My dashboards',
      queries: { count: { sql: 'SELECT count(*)::int AS n FROM dashboards' } },
      panels: [{ id: 'n', type: 'stat', title: 'Dashboards', query: 'count', value: 'n' }],
    };
    // The spec publish (the first `self` query starts its sandbox) runs beside the others.
    await Promise.all([
      ok(personal, 'publish_dashboard', { path: 'live-metrics', spec, name: 'Live metrics', tags: ['ops'], connection: 'self' }),
      (async () => {
        await ok(personal, 'publish_dashboard', { path: 'sales-notes', body: '<!doctype html><title>Sales</title><h1>First draft</h1>', name: 'Sales notes', visibility: 'private', tags: ['sales'] });
        await ok(personal, 'publish_dashboard', { path: 'sales-notes', body: '<!doctype html><title>Sales</title><h1>Second draft</h1>' });
        await ok(team, 'publish_dashboard', { path: 'team-board', body: '<!doctype html><title>Team</title><h1>Team board</h1>', name: 'Team board' });
      })(),
    ]);
  });

  it('lists, searches and filters them, and switches to the workspace', async () => {
    await page.goto(`${app}/account`);
    await page.getByRole('link', { name: 'Manage dashboards' }).click();
    await page.waitForURL(`${app}/dashboards`);
    expect(await page.locator('h1').textContent()).to.equal('Dashboards');
    expect(await page.locator('td.name .mono').allTextContents()).to.deep.equal(['live-metrics', 'sales-notes']);
    expect(await page.locator('tbody tr').first().textContent()).to.match(/refreshable/);
    await check('dashboards-list');
    // Each row's image loads under the page's policy, in the reader's colour scheme, named by its alt text.
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.reload();
      const images = await page.locator('picture.thumb img').evaluateAll((imgs) =>
        Promise.all((imgs as HTMLImageElement[]).map((img) => img.decode().then(() => ({ alt: img.alt, width: img.naturalWidth, dark: img.currentSrc.endsWith('?theme=dark') })))),
      );
      expect(images).to.deep.equal([{ alt: 'Live metrics', width: 1200, dark: scheme === 'dark' }, { alt: 'Sales notes', width: 1200, dark: scheme === 'dark' }]);
    }
    await page.emulateMedia({ colorScheme: 'light' });

    await page.getByLabel('Search name or slug').fill('SALES');
    await page.getByRole('button', { name: 'Filter' }).click();
    expect(await page.locator('td.name .mono').allTextContents()).to.deep.equal(['sales-notes']);
    await page.goto(`${app}/dashboards?owner=ada&kind=refreshable`);
    expect(await page.locator('td.name .mono').allTextContents()).to.deep.equal(['live-metrics']);
    await page.goto(`${app}/dashboards?owner=ada&tag=sales&visibility=private`);
    expect(await page.locator('td.name .mono').allTextContents()).to.deep.equal(['sales-notes']);

    await page.getByRole('navigation', { name: 'Owner' }).getByRole('link', { name: 'Acme Analytics' }).click();
    expect(await page.locator('td.name .mono').allTextContents()).to.deep.equal(['team-board']);
  });

  it('shows a dashboard, restores an older version (a new version, as the tool makes) and names one', async () => {
    await page.goto(`${app}/dashboards?owner=ada`);
    await page.getByRole('link', { name: 'Sales notes' }).click();
    await page.waitForURL(`${app}/dashboards/ada/sales-notes`);
    expect(await page.locator('h1').textContent()).to.equal('Sales notes');
    expect(await page.getByText('Private dashboards are not framed here.').count()).to.equal(1);
    await check('dashboard-private');

    const before = jsonOf((await ok(personal, 'list_dashboard_versions', { slug: 'sales-notes' })).text);
    expect(before.count).to.equal(1);
    await page.getByRole('link', { name: 'Preview version 1' }).click();
    expect(await page.locator('h1').textContent()).to.equal('Version 1 of sales-notes');
    const frame = page.frameLocator('iframe.preview');
    expect(await frame.locator('h1').textContent()).to.equal('First draft');
    await check('dashboard-version');

    await page.getByRole('button', { name: 'Restore this version' }).click();
    await page.waitForURL(`${app}/dashboards/ada/sales-notes?done=restored`);
    expect(await page.locator('.notice').textContent()).to.match(/^Restored/);
    const body = await ok(personal, 'get_dashboard', { slug: 'sales-notes', include_body: true });
    expect(body.text).to.contain('First draft');
    expect(jsonOf((await ok(personal, 'list_dashboard_versions', { slug: 'sales-notes' })).text).count).to.equal(2);

    await page.getByLabel('Name for version 2').fill('before restore');
    await page.getByRole('button', { name: 'Save name of version 2' }).click();
    await page.waitForURL(/done=named/);
    const versions = jsonOf((await ok(personal, 'list_dashboard_versions', { slug: 'sales-notes' })).text).versions as Array<{ seq: number; name: string | null }>;
    expect(versions.find((v) => v.seq === 2)?.name).to.equal('before restore');
  });

  it('changes visibility and tags, answers a refusal next to its field, and renames with the old URL redirecting (301)', async () => {
    const dashboardsHost = server.hosts.dashboard('ada');
    expect((await hostRequest(server.port, dashboardsHost, '/sales-notes', { headers: { accept: 'text/html' } })).status).to.equal(302); // private: sign in first

    await page.goto(`${app}/dashboards/ada/sales-notes`);
    await page.getByLabel('Visibility', { exact: true }).selectOption('public');
    await page.getByLabel('Tags').fill('sales, q3');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.waitForURL(/done=saved/);
    expect(await page.locator('iframe.preview').count()).to.equal(1);
    await hostStatus(dashboardsHost, '/sales-notes', 200);
    expect(jsonOf((await ok(personal, 'get_dashboard', { slug: 'sales-notes' })).text).dashboard).to.deep.include({ visibility: 'public', tags: ['sales', 'q3'] });

    // The tool's own refusal, shown next to the field.
    await page.getByLabel('New slug').fill('live-metrics');
    await page.getByRole('button', { name: 'Rename dashboard' }).click();
    expect(await page.locator('#rename-new_slug-error').textContent()).to.equal('slug "live-metrics" is already used by another dashboard');
    expect(await page.getByLabel('New slug').getAttribute('aria-invalid')).to.equal('true');

    await page.getByLabel('New slug').fill('q3-sales');
    await page.getByRole('button', { name: 'Rename dashboard' }).click();
    await page.waitForURL(`${app}/dashboards/ada/q3-sales?done=renamed&from=sales-notes`);
    expect(await page.locator('.notice').textContent()).to.contain('old address now redirects (301)');
    expect(await page.locator('dl').textContent()).to.contain(`${dashboardsHost}/sales-notes`);
    const old = await hostStatus(dashboardsHost, '/sales-notes', 301);
    expect(old.headers.location).to.equal(`http://${dashboardsHost}/q3-sales`);
    // The old page address in the app follows the alias too.
    await page.goto(`${app}/dashboards/ada/sales-notes`);
    expect(page.url()).to.equal(`${app}/dashboards/ada/q3-sales`);
  });

  it('sets a schedule shown in its time zone, refreshes now and shows the outcome', async () => {
    await page.goto(`${app}/dashboards/ada/live-metrics`);
    // Nobody has opened it: the chart says so and names no peak.
    expect(await page.locator('figure.chart figcaption').textContent()).to.match(/^No views in the last 30 days\./);
    expect(await page.locator('figure.chart').textContent()).to.not.match(/peak/i);
    await page.getByLabel('Schedule (cron, 5 fields)').fill('0 6 * * *');
    await page.getByLabel('Time zone').selectOption('Europe/Paris');
    await page.getByRole('button', { name: 'Save schedule' }).click();
    await page.waitForURL(/done=schedule/);
    expect(await page.getByText('(Europe/Paris)').count()).to.equal(5);
    expect(await page.locator('li').filter({ hasText: '06:00' }).count()).to.be.greaterThan(0);

    // Hold the run's record (SHARE mode blocks inserts, not the page's reads) so the page sees it pending.
    const holder = new pg.Client({ connectionString: database.url });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('LOCK TABLE refresh_runs IN SHARE MODE');
    try {
      await page.getByRole('button', { name: 'Refresh now' }).click();
      await page.waitForURL(/done=(queued|folded)/);
      expect(await page.locator('#refresh-pending').textContent()).to.match(/^(A refresh is queued…|Refreshing…)/);
      expect(await page.locator('table:has(caption:text("Last refresh runs")) tbody tr').count()).to.equal(0);
      // The reload goes to the page without the one-off notice.
      const reload = await page.locator('meta[http-equiv="refresh"]').getAttribute('content');
      expect(reload).to.equal('3;url=/dashboards/ada/live-metrics');
    } finally {
      await holder.query('ROLLBACK');
      await holder.end();
    }
    // The meta refresh reloads the page by itself until the run is listed.
    await page.locator('table:has(caption:text("Last refresh runs")) tbody tr').first().waitFor({ timeout: 30_000 });
    expect(new URL(page.url()).search).to.equal('');
    // The job may still be finishing as its run is listed: poll until the page no longer says it is pending.
    const deadline = Date.now() + 30_000;
    while ((await page.locator('#refresh-pending').count()) > 0) {
      if (Date.now() > deadline) throw new Error('the refresh stayed pending after its run was listed');
      await new Promise((resolve) => setTimeout(resolve, 300));
      await page.goto(`${app}/dashboards/ada/live-metrics`);
    }
    expect(await page.locator('meta[http-equiv="refresh"]').count()).to.equal(0);
    const run = await page.locator('table:has(caption:text("Last refresh runs")) tbody tr').first().textContent();
    expect(run).to.match(/manual/).and.match(/success/).and.match(/\d+ ms/);
    const status = jsonOf((await ok(personal, 'get_refresh_status', { slug: 'live-metrics' })).text);
    expect(status.last_run).to.include({ trigger: 'manual', outcome: 'success' });
    await check('dashboard-refreshable');

    // The list with a refresh run shown and a long (not extreme) name and tags.
    await ok(personal, 'publish_dashboard', { path: 'regional-revenue', body: '<h1>Revenue</h1>', name: 'Quarterly revenue by region and product line, with the forecast', tags: ['finance', 'quarterly-review', 'forecast-2027'] });
    await page.goto(`${app}/dashboards?owner=ada`);
    expect(await page.locator('td.run .badge').allTextContents()).to.deep.equal(['success']);
    // At 1280 px the table fits its card: nothing scrolls, and the last header is fully in view.
    await page.setViewportSize({ width: 1280, height: 800 });
    const fit = await page.locator('table.list').evaluate((table) => {
      const card = table.closest('.card')!;
      const scroller = table.parentElement!;
      const header = [...table.querySelectorAll('th')].find((th) => th.textContent === 'Views (30 days)')!;
      const box = header.getBoundingClientRect();
      const inner = scroller.getBoundingClientRect();
      return {
        tableWidth: table.scrollWidth,
        cardWidth: card.clientWidth,
        scrolls: scroller.scrollWidth > scroller.clientWidth,
        headerInView: box.right <= inner.right && box.left >= inner.left && header.scrollWidth <= header.clientWidth,
      };
    });
    expect(fit.tableWidth, JSON.stringify(fit)).to.be.at.most(fit.cardWidth);
    expect(fit, JSON.stringify(fit)).to.deep.include({ scrolls: false, headerInView: true });
    await page.setViewportSize({ width: 1280, height: 900 });
  });

  it('deletes a workspace dashboard after a confirmation that names its slug', async () => {
    await page.goto(`${app}/dashboards/acme/team-board`);
    expect(await page.getByText("Triggering a refresh on demand isn't available").count()).to.equal(0); // static: no refresh section
    await page.getByRole('link', { name: 'Delete team-board…' }).click();
    expect(await page.locator('h1').textContent()).to.equal('Delete team-board?');
    const warning = () => page.locator('p:has(strong:text("team-board"))').textContent();
    expect(await warning()).to.contain('its files and its old addresses; it has no earlier versions.').and.not.contain('0 earlier');
    await ok(team, 'publish_dashboard', { path: 'team-board', body: '<!doctype html><title>Team</title><h1>Team board, again</h1>' });
    await page.reload();
    expect(await warning()).to.contain(', its 1 earlier version, its files and its old addresses.');
    await page.getByLabel('Type team-board to confirm').fill('team');
    await page.getByRole('button', { name: 'Delete team-board' }).click();
    expect(await page.locator('#confirm-error').textContent()).to.equal('Type "team-board" exactly to confirm; nothing was deleted.');
    await check('dashboard-delete');

    await page.getByLabel('Type team-board to confirm').fill('team-board');
    await page.getByRole('button', { name: 'Delete team-board' }).click();
    await page.waitForURL(`${app}/dashboards?owner=acme&deleted=team-board`);
    expect(await page.locator('.notice').textContent()).to.equal('Deleted "team-board".');
    const gone = await call(team, 'get_dashboard', { slug: 'team-board' });
    expect(gone.isError).to.equal(true);
    expect(gone.text).to.equal('No dashboard named "team-board" in your account');
  });

  it('shows another user and a person outside the workspace nothing: the same 404 as a missing dashboard', async () => {
    const accounts = server.server.app.container.get<AccountStore>(AccountStore);
    const acme = (await accounts.findWorkspaceBySlug('acme'))!;
    await ok(team, 'publish_dashboard', { path: 'roadmap', body: '<h1>Roadmap</h1>' });

    const bob = new WebClient(server.url, server.hosts.app);
    const form = await bob.get('/sign-up');
    expect((await bob.post('/sign-up', { csrf: csrfOf(form), handle: 'bob', email: 'bob@example.com', password: PASSWORD })).status).to.equal(303);
    expect(await accounts.findMembership(acme.id, (await accounts.findUserByHandle('bob'))!.id)).to.equal(null);

    const missing = await bob.get('/dashboards/ada/no-such-dashboard');
    expect(missing.status).to.equal(404);
    for (const pathname of ['/dashboards/ada/q3-sales', '/dashboards/ada/live-metrics', '/dashboards/ada/sales-notes', '/dashboards/acme/roadmap', '/dashboards/nobody/roadmap', '/dashboards/ada/q3-sales/delete', '/dashboards?owner=acme', '/dashboards?owner=ada']) {
      const res = await bob.get(pathname);
      expect(res.status, pathname).to.equal(404);
      expect(res.text, pathname).to.equal(missing.text);
    }
    const versionId = jsonOf((await ok(personal, 'get_dashboard', { slug: 'q3-sales' })).text).dashboard.current_version_id;
    expect((await bob.get(`/dashboards/ada/q3-sales/versions/${versionId}/files/index.html`)).text).to.equal(missing.text);

    const csrf = csrfOf(await bob.get('/account'));
    for (const [pathname, fields] of [
      ['/dashboards/ada/q3-sales/delete', { confirm: 'q3-sales' }],
      ['/dashboards/acme/roadmap/delete', { confirm: 'roadmap' }],
      ['/dashboards/ada/live-metrics/refresh', {}],
      ['/dashboards/acme/roadmap/settings', { name: 'Mine now', tags: '', visibility: 'public' }],
    ] as const) {
      const res = await bob.post(pathname, { csrf, ...fields });
      expect(res.status, pathname).to.equal(404);
      expect(res.text, pathname).to.equal(missing.text);
    }
    expect((await ok(personal, 'get_dashboard', { slug: 'q3-sales' })).text).to.contain('q3-sales');
    expect(jsonOf((await ok(team, 'get_dashboard', { slug: 'roadmap' })).text).dashboard.name).to.equal('roadmap');

    // Bob's own list is empty, and the page is reachable and accessible.
    await page.context().clearCookies();
    await page.goto(`${app}/dashboards/ada/q3-sales`);
    await page.waitForURL(/\/sign-in\?return_to=/);
    await page.getByLabel('Email').fill('bob@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app}/dashboards/ada/q3-sales`);
    expect(await page.locator('h1').textContent()).to.equal('Dashboard not found');
    await check('dashboard-not-found');
  });

  it('works without JavaScript: sign in, change the name, name a version', async () => {
    const plain = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    try {
      const tab = await plain.newPage();
      await tab.goto(`${app}/dashboards/ada/q3-sales`);
      await tab.getByLabel('Email').fill('ada@example.com');
      await tab.getByLabel('Password').fill(PASSWORD);
      await tab.getByRole('button', { name: 'Sign in' }).click();
      await tab.waitForURL(`${app}/dashboards/ada/q3-sales`);
      await tab.getByLabel('Name', { exact: true }).fill('Q3 sales');
      await tab.getByRole('button', { name: 'Save changes' }).click();
      await tab.waitForURL(/done=saved/);
      expect(await tab.locator('h1').textContent()).to.equal('Q3 sales');
      await tab.getByLabel('Name for version 1').fill('first draft');
      await tab.getByRole('button', { name: 'Save name of version 1' }).click();
      await tab.waitForURL(/done=named/);
      expect(await tab.locator('table:has(caption:text("Earlier versions")) strong').allTextContents()).to.deep.equal(['before restore', 'first draft']);
    } finally {
      await plain.close();
    }
  });

  it('sends a visitor who is not signed in to sign in and back, and refuses a form without its CSRF token', async () => {
    const web = new WebClient(server.url, server.hosts.app);
    const anonymous = await web.get('/dashboards/ada/q3-sales?done=saved');
    expect(anonymous.status).to.equal(303);
    expect(anonymous.headers.location).to.equal('/sign-in?return_to=%2Fdashboards%2Fada%2Fq3-sales%3Fdone%3Dsaved');
    const form = await web.get('/sign-in');
    await web.post('/sign-in', { csrf: csrfOf(form), email: 'ada@example.com', password: PASSWORD, return_to: '/dashboards' });
    const res = await web.post('/dashboards/ada/q3-sales/delete', { csrf: 'forged', confirm: 'q3-sales' });
    expect(res.status).to.equal(403);

    // The page frames only the dashboards hosts; a version's file is served sandboxed, framable by the app only.
    const detail = await web.get('/dashboards/ada/live-metrics');
    expect(detail.headers['content-security-policy']).to.match(/frame-ancestors 'none'.*; frame-src http:\/\/\*\.dash\.localhost:\d+$/);
    const versionId = jsonOf((await ok(personal, 'get_dashboard', { slug: 'q3-sales' })).text).dashboard.current_version_id;
    const file = await web.get(`/dashboards/ada/q3-sales/versions/${versionId}/files/index.html`);
    expect(file.status).to.equal(200);
    expect(file.headers['content-security-policy']).to.equal("sandbox allow-scripts; frame-ancestors 'self'");
    expect(file.text).to.contain('First draft');
    expect((await ok(personal, 'get_dashboard', { slug: 'q3-sales' })).text).to.contain('q3-sales');

    // An address naming no version leads nowhere, as a missing dashboard; a cursor that is not the
    // service's shows the first page with the tool's refusal.
    const missing = await web.get('/dashboards/ada/no-such-dashboard');
    for (const pathname of ['/dashboards/ada/q3-sales/versions/not-a-version', '/dashboards/ada/q3-sales/versions/not-a-version/files/index.html']) {
      const res = await web.get(pathname);
      expect(res.status, pathname).to.equal(404);
      expect(res.text, pathname).to.equal(missing.text);
    }
    const badCursor = await web.get('/dashboards?cursor=not-a-cursor');
    expect(badCursor.status).to.equal(400);
    expect(badCursor.text).to.contain('cursor is not valid; pass the next_cursor from the previous answer, or omit it to start over');
    expect(badCursor.text).to.contain('q3-sales');
  });
});
