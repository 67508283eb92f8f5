import { expect } from 'chai';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { AdminAccounts } from '../../../application/accounts/admin-accounts.js';
import { PublishDashboard } from '../../../application/dashboards/publish-dashboard.js';
import { startServer, type RunningServer } from '../../../shells/koa/server.js';
import { launchChromium, openPage } from '../../support/browser.js';
import { createMigratedTestDatabase, type TestDatabase } from '../../support/database.js';
import { aPrincipal, workspaceLock } from '../../support/mothers.js';
import { freePort } from '../../support/server.js';
import { testSettings } from '../../support/settings.js';

const SECRET = 'S3CRET-acme-plans';

/** What another tenant's page learns when it points each kind of sub-resource at `urls` (run inside that page). */
interface Probe {
  script: string;
  global: string;
  style: string;
  width: string;
  image: string;
  imageWidth: number;
  fetch: string;
  noCors: string;
  frame: string;
}

async function probe(page: Page, urls: { js: string; css: string; svg: string; page: string }): Promise<Probe> {
  return page.evaluate(async (u) => {
    const settled = (el: HTMLElement & { onload: unknown; onerror: unknown }) =>
      new Promise<string>((resolve) => {
        el.onload = () => resolve('load');
        el.onerror = () => resolve('error');
      });
    const w = window as unknown as { acmeSecret?: string };
    const script = document.createElement('script');
    script.src = u.js;
    const scriptDone = settled(script);
    document.head.append(script);
    const probeBox = document.createElement('div');
    probeBox.id = 'probe';
    document.body.append(probeBox);
    const link = document.createElement('link');
    link.rel = 'stylesheet';
    link.href = u.css;
    const linkDone = settled(link);
    document.head.append(link);
    const image = new Image();
    const imageDone = settled(image);
    image.src = u.svg;
    const read = async (init: RequestInit) => {
      try {
        const res = await fetch(u.page, init);
        return `${res.type}:${await res.text()}`;
      } catch {
        return 'refused';
      }
    };
    const frame = document.createElement('iframe');
    const frameDone = new Promise<string>((resolve) => (frame.onload = () => resolve('load')));
    frame.src = u.page;
    document.body.append(frame);
    const out = {
      script: await scriptDone,
      global: String(w.acmeSecret),
      style: await linkDone,
      width: getComputedStyle(probeBox).width,
      image: await imageDone,
      imageWidth: image.naturalWidth,
      fetch: await read({ credentials: 'include' }),
      noCors: await read({ credentials: 'include', mode: 'no-cors' }),
      frame: await frameDone,
    };
    probeBox.remove();
    return out;
  }, urls);
}

/**
 * Issue 30, item 1 (XSSI): a public page of account `bob` on a sibling dashboards host (same site as the
 * app, as in production) points scripts, styles, images, frames and fetches at a private dashboard of
 * workspace `acme` and at the web app's version-file route, while `carol`, an acme member, opens it.
 */
describe('e2e security: private dashboard files cannot be embedded by another tenant (XSSI)', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let server: RunningServer;
  let browser: Browser;
  let port: number;
  let lure: string;
  let hosted: { js: string; css: string; svg: string; page: string };
  let versionFiles: { js: string; css: string; svg: string; page: string };
  const password = 'correct horse battery staple';

  before(async () => {
    database = await createMigratedTestDatabase();
    port = await freePort();
    const appUrl = `http://app.corp.localhost:${port}`;
    server = await startServer(
      testSettings({ port, baseUrl: `http://localhost:${port}`, appUrl, dashboardDomain: `dash.corp.localhost:${port}`, databaseUrl: database.url }),
    );
    const admin = server.app.container.get(AdminAccounts);
    const bob = await admin.addUser({ handle: 'bob', email: 'bob@example.com', password });
    const carol = await admin.addUser({ handle: 'carol', email: 'carol@example.com', password });
    const acme = await admin.addWorkspace({ slug: 'acme', name: 'Acme' });
    await admin.addMember({ workspace: 'acme', handle: 'carol' });
    const publish = server.app.container.get(PublishDashboard);
    const inAcme = aPrincipal(carol.id, { grantId: 'carol-acme', lock: workspaceLock(acme) });
    await publish.execute(inAcme, { path: 'plans', body: `<!doctype html><title>Plans</title><p id="secret">${SECRET}</p>`, visibility: 'private' });
    await publish.execute(inAcme, { path: 'plans/data.js', body: `window.acmeSecret = ${JSON.stringify(SECRET)};` });
    await publish.execute(inAcme, { path: 'plans/style.css', body: `/* ${SECRET} */ #probe { width: 321px; }` });
    const last = await publish.execute(inAcme, {
      path: 'plans/chart.svg',
      body: `<svg xmlns="http://www.w3.org/2000/svg" width="77" height="33"><text>${SECRET}</text></svg>`,
    });
    const bobPrincipal = aPrincipal(bob.id, { grantId: 'bob' });
    await publish.execute(bobPrincipal, { path: 'lure', body: '<!doctype html><title>Cute cats</title><p>cats</p>' });
    await publish.execute(bobPrincipal, { path: 'lure/own.js', body: 'window.acmeSecret = "own script ran";' });
    const acmeHost = `http://acme.dash.corp.localhost:${port}`;
    hosted = { js: `${acmeHost}/plans/data.js`, css: `${acmeHost}/plans/style.css`, svg: `${acmeHost}/plans/chart.svg`, page: `${acmeHost}/plans` };
    const files = `${appUrl}/dashboards/acme/plans/versions/${last.published!.version.id}/files`;
    versionFiles = { js: `${files}/data.js`, css: `${files}/style.css`, svg: `${files}/chart.svg`, page: `${files}/index.html` };
    lure = `http://bob.dash.corp.localhost:${port}/lure`;
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await database?.drop();
  });

  async function carolSignedIntoApp(): Promise<{ context: BrowserContext; page: Page }> {
    const opened = await openPage(browser);
    await opened.page.goto(`http://app.corp.localhost:${port}/sign-in`);
    await opened.page.getByLabel('Email').fill('carol@example.com');
    await opened.page.getByLabel('Password').fill(password);
    await opened.page.getByRole('button', { name: 'Sign in' }).click();
    await opened.page.waitForURL((url) => url.pathname !== '/sign-in');
    return opened;
  }

  /** Every probe failed, and no frame of the attacker's page holds the secret. */
  async function expectNothingLeaked(page: Page, result: Probe): Promise<void> {
    expect(JSON.stringify(result)).to.not.contain(SECRET);
    expect(result).to.include({ script: 'error', style: 'error', image: 'error', global: 'undefined' });
    expect(result.width).to.not.equal('321px');
    expect(result.imageWidth).to.equal(0);
    for (const frame of page.frames()) expect(await frame.content()).to.not.contain(SECRET);
  }

  it('the probes work: the lure page loads its own script, and carol reaches the dashboard by navigating to it', async () => {
    const { context, page } = await carolSignedIntoApp();
    await page.goto(lure);
    const own = await page.evaluate(async (src) => {
      const s = document.createElement('script');
      s.src = src;
      await new Promise((resolve) => {
        s.onload = resolve;
        s.onerror = resolve;
        document.head.append(s);
      });
      return (window as unknown as { acmeSecret?: string }).acmeSecret;
    }, `${lure}/own.js`);
    expect(own).to.equal('own script ran');
    await page.goto(hosted.page);
    expect(await page.locator('#secret').textContent()).to.equal(SECRET);
    await context.close();
  });

  it('leaks nothing to the lure page when carol is signed in to the app only (no silent viewer sign-in)', async () => {
    const { context, page } = await carolSignedIntoApp();
    await page.goto(lure);
    await expectNothingLeaked(page, await probe(page, hosted));
    await expectNothingLeaked(page, await probe(page, versionFiles));
    // No viewer session was made on acme's host by any of those requests.
    expect((await context.cookies(hosted.page)).map((c) => c.name)).to.not.include('dashpub_viewer');
    await context.close();
  });

  it('leaks nothing to the lure page after carol has viewed the private dashboard', async () => {
    const { context, page } = await carolSignedIntoApp();
    await page.goto(hosted.page);
    expect(await page.locator('#secret').textContent()).to.equal(SECRET);
    expect((await context.cookies(hosted.page)).map((c) => c.name)).to.include('dashpub_viewer');
    await page.goto(lure);
    await expectNothingLeaked(page, await probe(page, hosted));
    await expectNothingLeaked(page, await probe(page, versionFiles));
    await context.close();
  });
});
