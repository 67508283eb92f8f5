import axe from 'axe-core';
import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from '../support/browser.js';
import { AdminAccounts } from '../../application/accounts/admin-accounts.js';
import { PublishDashboard } from '../../application/dashboards/publish-dashboard.js';
import type { Principal } from '../../application/ports/token-verifier.js';
import { startServer, type RunningServer } from '../../shells/koa/server.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { testSettings } from '../support/settings.js';
import { freePort } from '../support/server.js';
import { aPrincipal } from '../support/mothers.js';

/** A private dashboard whose own script loads a sibling file through a relative link. */
const PAGE = `<!doctype html><html><head><meta charset="utf-8"><title>Diary</title></head>
<body><h1 id="title">Private diary</h1><p id="data">loading</p>
<script src="app.js"></script></body></html>`;
const SCRIPT = `fetch('diary/data.json').then(r => r.json()).then(d => {
  document.getElementById('data').textContent = d.entries + ' entries; cookie visible: ' + document.cookie.includes('dashpub_viewer');
});`;

describe('e2e: private dashboard in a real browser', function () {
  this.timeout(90_000);
  let database: TestDatabase;
  let server: RunningServer;
  let browser: Browser;
  let port: number;
  const password = 'correct horse battery staple';

  before(async () => {
    database = await createMigratedTestDatabase();
    port = await freePort();
    const settings = testSettings({
      port,
      baseUrl: `http://localhost:${port}`,
      appUrl: `http://app.localhost:${port}`,
      dashboardDomain: `dash.localhost:${port}`,
      databaseUrl: database.url,
    });
    server = await startServer(settings);
    const admin = server.app.container.get(AdminAccounts);
    const vera = await admin.addUser({ handle: 'vera', email: 'vera@example.com', password });
    await admin.addUser({ handle: 'mallory', email: 'mallory@example.com', password });
    const principal: Principal = aPrincipal(vera.id, { grantId: 'browser' });
    const publish = server.app.container.get(PublishDashboard);
    await publish.execute(principal, { path: 'diary', body: PAGE, visibility: 'private' });
    await publish.execute(principal, { path: 'diary/app.js', body: SCRIPT });
    await publish.execute(principal, { path: 'diary/data.json', body: '{"entries":3}' });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await database?.drop();
  });

  async function openAs(email: string) {
    const { context, page } = await openPage(browser);
    await page.goto(`http://vera.dash.localhost:${port}/diary`);
    // Sent to the web app's sign-in page.
    expect(new URL(page.url()).host).to.equal(`app.localhost:${port}`);
    expect(new URL(page.url()).pathname).to.equal('/sign-in');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`http://vera.dash.localhost:${port}/diary`);
    return { context, page };
  }

  it('sends the owner to sign in and lands on the dashboard, whose own scripts run', async () => {
    const { context, page } = await openAs('vera@example.com');
    expect(await page.locator('#title').textContent()).to.equal('Private diary');
    await page.waitForFunction(() => document.getElementById('data')?.textContent !== 'loading');
    // The page's script fetched its data with the viewer cookie, and could not read that cookie.
    expect(await page.locator('#data').textContent()).to.equal('3 entries; cookie visible: false');
    const viewer = (await context.cookies()).find((c) => c.name === 'dashpub_viewer');
    expect(viewer?.domain).to.equal('vera.dash.localhost');
    expect(viewer?.httpOnly).to.equal(true);
    expect(viewer?.sameSite).to.equal('Lax');
    // Coming back needs no new sign-in.
    await page.goto(`http://vera.dash.localhost:${port}/diary/data.json`);
    expect(await page.locator('body').textContent()).to.contain('"entries":3');
    await context.close();
  });

  it('tells an anonymous visitor that the host\'s dashboards are private, the same for a missing path, naming no slug', async () => {
    const { context, page } = await openPage(browser);
    await page.goto(`http://vera.dash.localhost:${port}/diary`);
    expect(new URL(page.url()).pathname).to.equal('/sign-in');
    expect(await page.locator('h1').textContent()).to.equal('This dashboard is private');
    const text = await page.locator('main').innerText();
    expect(text).to.contain(
      'Dashboards on vera.dash.localhost:' + port + ' marked private are shown to the members of that account or workspace, or to someone with a share link. Sign in to continue.',
    );
    expect(text).to.not.contain('diary').and.not.contain('to dashpub');
    await page.evaluate(axe.source);
    const found = (await page.evaluate(() =>
      (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }),
    )) as axe.AxeResults;
    expect(found.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => v.id)).to.deep.equal([]);

    // A missing path never redirects (404), so take the same viewer round trip with that path as its return.
    expect((await page.goto(`http://vera.dash.localhost:${port}/no-such-dashboard`))?.status()).to.equal(404);
    const viewerSignIn = new URL(`http://app.localhost:${port}/viewer/sign-in?subdomain=vera&return=%2Fno-such-dashboard&state=${'a'.repeat(43)}`);
    await page.goto(viewerSignIn.toString());
    expect(new URL(page.url()).pathname).to.equal('/sign-in');
    expect(await page.locator('main').innerText()).to.equal(text);
    await context.close();
  });

  it('keeps the private notice through a refused sign-in and still returns to the dashboard', async () => {
    const { context, page } = await openPage(browser);
    await page.goto(`http://vera.dash.localhost:${port}/diary`);
    await page.getByLabel('Email').fill('vera@example.com');
    await page.getByLabel('Password').fill('wrong password entirely');
    await page.getByRole('button', { name: 'Sign in' }).click();
    expect(await page.locator('[role=alert]').count()).to.equal(1);
    expect(await page.locator('h1').textContent()).to.equal('This dashboard is private');
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`http://vera.dash.localhost:${port}/diary`);
    expect(await page.locator('#title').textContent()).to.equal('Private diary');
    await context.close();
  });

  it('shows a signed-in stranger the same 404 page as a missing dashboard', async () => {
    const { context, page } = await openAs('mallory@example.com');
    expect(await page.locator('h1').textContent()).to.equal('Dashboard not found');
    const hidden = await page.content();
    await page.goto(`http://vera.dash.localhost:${port}/no-such-dashboard`);
    expect(await page.content()).to.equal(hidden);
    await context.close();
  });
});
