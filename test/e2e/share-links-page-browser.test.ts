import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PublishDashboard } from '../../application/dashboards/publish-dashboard.js';
import { AccountStore } from '../../application/ports/account-store.js';
import { launchChromium, openPage, SCREENSHOTS, signUpInBrowser } from '../support/browser.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { hostRequest } from '../support/hosting-http.js';
import { aPrincipal } from '../support/mothers.js';
import { startFullServer } from '../support/server.js';

const axeSource: string = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
const PASSWORD = 'a long enough password';
const DAY_MS = 86_400_000;

/**
 * The dashboard page's Share section in Chromium, on PostgreSQL, without JavaScript: create a link with a
 * label, password, expiry and pinned version, see its address once, pause, resume and revoke it, and
 * refusals next to their fields. axe-core checks the section in light and dark with links listed.
 */
describe('e2e: share links on the dashboard page in a real browser', function () {
  this.timeout(90_000);
  let database: TestDatabase;
  let server: Awaited<ReturnType<typeof startFullServer>>;
  let browser: Browser;
  let scripted: Page;
  let plain: BrowserContext;
  let page: Page;
  let app: string;
  const sales = () => `${app}/dashboards/ada/sales`;
  const rows = () => page.locator('table:has(caption:text("Share links")) tbody tr');

  /** No serious or critical axe-core violation, in the dark scheme and then the light one. */
  async function accessible(name: string) {
    for (const scheme of ['dark', 'light'] as const) {
      await scripted.emulateMedia({ colorScheme: scheme });
      await scripted.evaluate(axeSource);
      const results = await scripted.evaluate(() =>
        (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }> }> } }).axe.run(document, {
          iframes: false,
          runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
        }),
      );
      const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(bad.map((v) => `${v.id} (${v.impact}): ${JSON.stringify(v.nodes.map((n) => n.target))}`), `axe on ${name} (${scheme})`).to.deep.equal([]);
    }
    for (const [suffix, width] of [['desktop', 1280], ['phone', 390]] as const) {
      await scripted.setViewportSize({ width, height: 900 });
      await scripted.locator('section.share').screenshot({ path: path.join(SCREENSHOTS, `${name}-${suffix}.png`) });
    }
    await scripted.setViewportSize({ width: 1280, height: 900 });
  }

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const launched = launchChromium();
    database = await createMigratedTestDatabase();
    server = await startFullServer({ DATABASE_URL: database.url, SECRET_KEY: 'share-links-page-secret', REDIS_URL: '' });
    app = server.settings.appUrl;
    browser = await launched;
    ({ page: scripted } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
    await signUpInBrowser(scripted, app, { handle: 'ada', email: 'ada@example.com', password: PASSWORD });
    const ada = (await server.server.app.container.get<AccountStore>(AccountStore).findUserByHandle('ada'))!;
    const publish = server.server.app.container.get(PublishDashboard);
    await publish.execute(aPrincipal(ada.id), { path: 'sales', body: '<!doctype html><title>Sales</title><h1>First draft</h1>', visibility: 'private', name: 'Sales' });
    await publish.execute(aPrincipal(ada.id), { path: 'sales', body: '<!doctype html><title>Sales</title><h1>Second draft</h1>' });

    plain = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    page = await plain.newPage();
    await page.goto(`${app}/sign-in`);
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${app}/account`);
  });

  after(async () => {
    await plain?.close();
    await browser?.close();
    await server?.close();
    await database?.drop();
  });

  it('creates a link with a label, password, expiry and pinned version, and shows its address exactly once', async () => {
    await page.goto(sales());
    expect(await page.locator('#share').textContent()).to.equal('Share');
    expect(await page.getByText('No share links yet.').count()).to.equal(1);

    await page.getByLabel('Label (optional)').fill('Board, Q3');
    await page.getByLabel('Shows').selectOption({ label: await page.locator('#share-pin option').nth(2).textContent() as string });
    await page.getByLabel('Expires').selectOption('7d');
    await page.getByLabel('Password (optional)').fill('correct horse');
    const [answer] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Create share link' }).click()]);
    expect(answer!.status()).to.equal(200);
    expect(answer!.headers()['cache-control']).to.equal('no-store');
    expect(page.url()).to.equal(`${sales()}/share#share`);

    const field = page.getByLabel('Copy this link now; it is not shown again');
    expect(await field.getAttribute('readonly')).to.equal('');
    const url = await field.inputValue();
    const dashboardsHost = server.hosts.dashboard('ada');
    expect(url).to.match(new RegExp(`^http://${dashboardsHost.replace(/\./g, '\\.')}/_share/[A-Za-z0-9_-]{43}$`));
    expect((await page.content()).split('/_share/').length).to.equal(2);

    const row = await rows().first().textContent();
    const inAWeek = new Date(Date.now() + 7 * DAY_MS).toISOString().slice(0, 10);
    expect(row).to.contain('Board, Q3').and.contain('active').and.contain('yes').and.contain('version 1').and.contain(inAWeek);
    expect(await rows().first().locator('td[data-label="Views"]').textContent()).to.equal('0');
    expect(await rows().first().locator('td[data-label="Last used"]').textContent()).to.equal('never');

    // The address works on the dashboards host (it asks for the password), and the page never shows it again.
    const opened = await hostRequest(server.port, dashboardsHost, new URL(url).pathname, { headers: { accept: 'text/html' } });
    expect(opened.status).to.equal(303);
    expect(opened.headers.location).to.equal('/_share');
    await page.goto(sales());
    expect(await page.content()).to.not.contain('/_share/');
    expect(await page.getByLabel('Copy this link now; it is not shown again').count()).to.equal(0);
    expect(await rows().count()).to.equal(1);
  });

  it('shows refusals next to their fields, keeps what was typed, and never echoes the password', async () => {
    await page.goto(sales());
    await page.getByLabel('Label (optional)').fill('Too short');
    await page.getByLabel('Password (optional)').fill('short');
    const [answer] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Create share link' }).click()]);
    expect(answer!.status()).to.equal(400);
    expect(await page.locator('#share-password-error').textContent()).to.equal('password must be at least 10 characters');
    expect(await page.getByLabel('Password (optional)').getAttribute('aria-invalid')).to.equal('true');
    expect(await page.getByLabel('Password (optional)').inputValue()).to.equal('');
    expect(await page.getByLabel('Label (optional)').inputValue()).to.equal('Too short');
    expect(await page.content()).to.not.contain('value="short"');

    await page.getByLabel('Or on a date (optional)').fill('2020-01-31');
    const [past] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Create share link' }).click()]);
    expect(past!.status()).to.equal(400);
    expect(await page.locator('#share-expires_on-error').textContent()).to.equal('expiry must be in the future');
    expect(await rows().count()).to.equal(1);
  });

  it('pauses, resumes and revokes a link, each with its status line, and the address follows', async () => {
    await page.goto(sales());
    await page.getByLabel('Label (optional)').fill('Partners');
    await page.getByLabel('Or on a date (optional)').fill(new Date(Date.now() + 30 * DAY_MS).toISOString().slice(0, 10));
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Create share link' }).click()]);
    const token = new URL(await page.getByLabel('Copy this link now; it is not shown again').inputValue()).pathname;
    const partners = () => rows().filter({ hasText: 'Partners' });
    expect(await partners().locator('td[data-label="Shows"]').textContent()).to.equal('follows the current version');
    expect(await partners().locator('td[data-label="Password"]').textContent()).to.equal('no');
    const open = () => hostRequest(server.port, server.hosts.dashboard('ada'), token, { headers: { accept: 'text/html' } });
    expect((await open()).headers.location).to.equal('/sales');

    await page.getByRole('button', { name: 'Pause share link Partners' }).click();
    await page.waitForURL(`${sales()}?done=link-paused#share`);
    expect(await page.locator('.notice').textContent()).to.match(/^Share link paused/);
    expect(await partners().locator('.badge').textContent()).to.equal('paused');
    expect((await open()).status).to.equal(404);

    await page.getByRole('button', { name: 'Resume share link Partners' }).click();
    await page.waitForURL(`${sales()}?done=link-resumed#share`);
    expect(await partners().locator('.badge').textContent()).to.equal('active');
    expect((await open()).status).to.equal(303);

    await page.getByRole('button', { name: 'Revoke share link Partners' }).click();
    await page.waitForURL(`${sales()}?done=link-revoked#share`);
    expect(await page.locator('.notice').textContent()).to.match(/^Share link revoked/);
    expect(await partners().count()).to.equal(0);
    expect(await rows().count()).to.equal(1);
    expect((await open()).status).to.equal(404);
  });

  it('passes axe-core in light and dark with links listed, and on the answer that shows a new address', async () => {
    await scripted.goto(sales());
    await scripted.getByLabel('Label (optional)').fill('Investors');
    await Promise.all([scripted.waitForNavigation(), scripted.getByRole('button', { name: 'Create share link' }).click()]);
    expect(await scripted.getByLabel('Copy this link now; it is not shown again').count()).to.equal(1);
    await accessible('dashboard-share-created');
    await scripted.getByRole('button', { name: 'Pause share link Investors' }).click();
    await scripted.waitForURL(/done=link-paused/);
    expect(await scripted.locator('table:has(caption:text("Share links")) tbody tr').count()).to.equal(2);
    await accessible('dashboard-share');
  });
});
