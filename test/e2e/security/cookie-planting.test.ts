import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AdminAccounts } from '../../../application/accounts/admin-accounts.js';
import { PublishDashboard } from '../../../application/dashboards/publish-dashboard.js';
import { startServer, type RunningServer } from '../../../shells/koa/server.js';
import { launchChromium, openPage } from '../../support/browser.js';
import { createMigratedTestDatabase, type TestDatabase } from '../../support/database.js';
import { aPrincipal, workspaceLock } from '../../support/mothers.js';
import { freePort, spawnServer } from '../../support/server.js';
import { testSettings } from '../../support/settings.js';

const SECRET = 'S3CRET-acme-roadmap';

/**
 * Issue 30, item 6: on an http deployment whose web app and dashboards share a site, a dashboard page of
 * account `mallory` plants cookies with a parent Domain and a longer Path, for the web app's session and
 * for another account's viewer cookie.
 */
describe('e2e security: cookies planted by a sibling dashboards host over http', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let server: RunningServer;
  let browser: Browser;
  let port: number;
  let appUrl: string;
  const password = 'correct horse battery staple';

  before(async () => {
    database = await createMigratedTestDatabase();
    port = await freePort();
    appUrl = `http://app.corp.localhost:${port}`;
    server = await startServer(
      testSettings({ port, baseUrl: `http://localhost:${port}`, appUrl, dashboardDomain: `dash.corp.localhost:${port}`, databaseUrl: database.url }),
    );
    const admin = server.app.container.get(AdminAccounts);
    const mallory = await admin.addUser({ handle: 'mallory', email: 'mallory@example.com', password });
    const carol = await admin.addUser({ handle: 'carol', email: 'carol@example.com', password });
    const acme = await admin.addWorkspace({ slug: 'acme', name: 'Acme' });
    await admin.addMember({ workspace: 'acme', handle: 'carol' });
    const publish = server.app.container.get(PublishDashboard);
    const inAcme = aPrincipal(carol.id, { grantId: 'carol-acme', lock: workspaceLock(acme) });
    await publish.execute(inAcme, { path: 'roadmap', body: `<!doctype html><title>Roadmap</title><p id="secret">${SECRET}</p>`, visibility: 'private' });

    // Mallory signs in herself: her own session token is what she plants.
    browser = await launchChromium();
    const own = await signedIn('mallory@example.com');
    const token = (await own.context.cookies(appUrl)).find((c) => c.name === 'dashpub_session')!.value;
    await own.context.close();
    const plant = [
      `dashpub_session=${token}; Domain=corp.localhost; Path=/account`,
      `dashpub_viewer=${'A'.repeat(43)}; Domain=dash.corp.localhost; Path=/roadmap`,
    ];
    const mallie = aPrincipal(mallory.id, { grantId: 'mallory' });
    await publish.execute(mallie, {
      path: 'cats',
      body: `<!doctype html><title>Cats</title><p>cats</p><script>${plant.map((c) => `document.cookie = ${JSON.stringify(c)};`).join('')}</script>`,
    });
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await database?.drop();
  });

  async function signedIn(email: string, opened?: { context: BrowserContext; page: Page }): Promise<{ context: BrowserContext; page: Page }> {
    const { context, page } = opened ?? (await openPage(browser));
    await page.goto(`${appUrl}/sign-in?return_to=%2Faccount`);
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${appUrl}/account`);
    return { context, page };
  }

  const visitCats = (page: Page) => page.goto(`http://mallory.dash.corp.localhost:${port}/cats`);

  it('a planted session cookie signs nobody in as mallory: the request has no session, and signing in again works', async () => {
    const { context, page } = await signedIn('carol@example.com');
    expect(await page.content()).to.contain('Acme');
    await visitCats(page);
    // The plant took: the browser now sends two session cookies to /account.
    expect((await context.cookies(`${appUrl}/account`)).filter((c) => c.name === 'dashpub_session')).to.have.length(2);
    await page.goto(`${appUrl}/account`);
    expect(new URL(page.url()).pathname).to.equal('/sign-in');
    expect(await page.content()).to.not.contain('mallory');
    // Every copy went with that answer, so signing in again lands on carol's own account, not a loop.
    expect((await context.cookies(`${appUrl}/account`)).filter((c) => c.name === 'dashpub_session')).to.have.length(0);
    await signedIn('carol@example.com', { context, page });
    expect(await page.content()).to.contain('Acme');
    expect(await page.content()).to.not.contain('mallory');
    await context.close();
  });

  it('a planted viewer cookie causes no redirect loop: the member still reaches the private dashboard', async () => {
    const { context, page } = await signedIn('carol@example.com');
    await page.goto(`http://acme.dash.corp.localhost:${port}/roadmap`);
    expect(await page.locator('#secret').textContent()).to.equal(SECRET);
    await visitCats(page);
    const viewerCookies = async () => (await context.cookies(`http://acme.dash.corp.localhost:${port}/roadmap`)).filter((c) => c.name === 'dashpub_viewer');
    expect(await viewerCookies()).to.have.length(2);
    await page.goto(`http://acme.dash.corp.localhost:${port}/roadmap`);
    expect(await page.locator('#secret').textContent()).to.equal(SECRET);
    expect((await viewerCookies()).map((c) => c.domain)).to.deep.equal(['acme.dash.corp.localhost']);
    await context.close();
  });
});

describe('e2e security: the start-up warning of a plain-http deployment', function () {
  this.timeout(90_000);
  let database: TestDatabase;
  before(async () => {
    database = await createMigratedTestDatabase();
  });
  after(async () => {
    await database?.drop();
  });

  /** The CLI prints its "listening" lines after start-up, on the same pipe as the log: everything said at start-up is in. */
  async function startedUp(server: { output(): string }): Promise<string> {
    for (let i = 0; i < 200 && !server.output().includes('listening on'); i++) await new Promise((resolve) => setTimeout(resolve, 50));
    expect(server.output()).to.contain('listening on');
    return server.output();
  }

  const WARNING = 'served over plain http on a non-loopback address (BASE_URL, APP_URL, DASHBOARD_DOMAIN)';

  it('says what is exposed when the public URLs are http on a non-loopback name, and nothing on loopback', async () => {
    const exposed = await spawnServer({
      DATABASE_URL: database.url,
      BASE_URL: 'http://dashpub.example.test',
      APP_URL: 'http://app.example.test',
      DASHBOARD_DOMAIN: 'dash.example.test',
    });
    try {
      const line = (await startedUp(exposed)).split('\n').find((l) => l.includes(WARNING));
      expect(line, exposed.output()).to.be.a('string');
      const entry = JSON.parse(line!) as { level: number; msg: string };
      expect(entry.level).to.equal(40);
      expect(entry.msg).to.contain('session cookies, viewer cookies, access tokens and dashboard contents cross the network unencrypted');
      expect(entry.msg).to.contain('__Host-');
    } finally {
      await exposed.close();
    }
    const local = await spawnServer({ DATABASE_URL: database.url });
    try {
      expect(await startedUp(local)).to.not.contain('plain http');
    } finally {
      await local.close();
    }
  });
});
