import { createRequire } from 'node:module';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { AdminAccounts } from '../../application/accounts/admin-accounts.js';
import { PublishDashboard } from '../../application/dashboards/publish-dashboard.js';
import { DashboardStore } from '../../application/ports/dashboard-store.js';
import type { Principal } from '../../application/ports/token-verifier.js';
import { ManageShareLinks } from '../../application/sharing/manage-share-links.js';
import { buildContainer } from '../../shells/container.js';
import { startServer, type RunningServer } from '../../shells/koa/server.js';
import { launchChromium, openPage } from '../support/browser.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { ManualClock } from '../support/hosting-fixtures.js';
import { aPrincipal, workspaceLock } from '../support/mothers.js';
import { freePort } from '../support/server.js';
import { testSettings } from '../support/settings.js';

const axeSource: string = (createRequire(import.meta.url)('axe-core') as { source: string }).source;

/** A private page whose own script loads a sibling file through a relative link. */
const PAGE = (version: string) => `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Plan</title></head>
<body><h1 id="title">Plan ${version}</h1><p id="data">loading</p><script src="plan/app.js"></script></body></html>`;
const SCRIPT = `fetch('plan/data.json').then(r => r.json()).then(d => { document.getElementById('data').textContent = d.rows + ' rows'; });`;
const DAY_MS = 86_400_000;

/**
 * The walk through a share link in Chromium: a password and an expiry on a private workspace
 * dashboard, opened by a browser with no account; the clock is the server's injected one.
 */
describe('e2e: share links in a real browser', function () {
  this.timeout(120_000);
  const clock = new ManualClock(Date.now());
  let database: TestDatabase;
  let server: RunningServer;
  let browser: Browser;
  let port: number;
  let vera: Principal;
  let dashHost: string;

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
    const app = await buildContainer(settings, { clock });
    server = await startServer(settings, { container: app });
    const admin = app.container.get(AdminAccounts);
    const user = await admin.addUser({ handle: 'vera', email: 'vera@example.com', password: 'vera password 1' });
    const workspace = await admin.addWorkspace({ slug: 'acme', name: 'Acme' });
    await admin.addMember({ workspace: 'acme', handle: 'vera', role: 'admin' });
    vera = aPrincipal(user.id, { lock: workspaceLock(workspace) });
    await publish('plan', PAGE('v1'));
    await publish('plan/app.js', SCRIPT);
    await publish('plan/data.json', '{"rows":3}');
    await publish('secret', '<p id="secret">other private dashboard</p>');
    dashHost = `http://acme.dash.localhost:${port}`;
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await database?.drop();
  });

  const publish = (path: string, body: string) => server.app.container.get(PublishDashboard).execute(vera, { path, body });
  const links = () => server.app.container.get(ManageShareLinks);

  async function expectAccessible(page: Page, name: string) {
    for (const colorScheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme });
      await page.evaluate(axeSource);
      const result = (await page.evaluate(() =>
        (window as unknown as { axe: { run(d: Document, o: object): Promise<{ violations: Array<{ id: string }> }> } }).axe.run(document, { resultTypes: ['violations'] }),
      )) as { violations: Array<{ id: string }> };
      expect(result.violations.map((v) => v.id), `axe on ${name} (${colorScheme})`).to.deep.equal([]);
    }
  }

  async function submit(page: Page, password: string) {
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Open dashboard' }).click();
    await page.waitForLoadState('load');
  }

  it('asks for the password, refuses and then limits wrong ones, lets the right one in to the page and its files only, until it expires', async () => {
    const created = await links().create({ kind: 'operator' }, { workspace: 'acme' }, 'plan', { password: 'open sesame 42', expiresInMs: 7 * DAY_MS, label: 'board' });
    const { context, page } = await openPage(browser);
    await page.goto(`${dashHost}/_share/${created.token}`);
    expect(page.url()).to.equal(`${dashHost}/_share`);
    await expectAccessible(page, 'the password page');

    for (let i = 0; i < 10; i++) {
      await submit(page, `wrong ${i}`);
      expect(await page.getByRole('alert').textContent()).to.equal('That password is not right. Try again.');
    }
    await submit(page, 'open sesame 42');
    expect(await page.getByRole('alert').textContent()).to.equal('Too many password attempts for this link. Wait about 60 seconds and try again.');
    clock.advance(61_000);
    await submit(page, 'open sesame 42');

    expect(page.url()).to.equal(`${dashHost}/plan`);
    expect(await page.locator('#title').textContent()).to.equal('Plan v1');
    await page.waitForFunction(() => document.getElementById('data')?.textContent !== 'loading');
    expect(await page.locator('#data').textContent()).to.equal('3 rows');
    const cookie = (await context.cookies()).find((c) => c.name === 'dashpub_share_plan');
    expect(cookie?.httpOnly).to.equal(true);
    expect(cookie?.sameSite).to.equal('Lax');
    expect((await context.cookies()).some((c) => c.value.includes(created.token))).to.equal(false);

    // Nothing else opens: the workspace's other private dashboard and the web app both ask for a sign-in.
    await page.goto(`${dashHost}/secret`);
    expect(new URL(page.url()).host).to.equal(`app.localhost:${port}`);
    expect(await page.locator('#secret').count()).to.equal(0);
    await page.goto(`http://app.localhost:${port}/dashboards`);
    expect(new URL(page.url()).pathname).to.equal('/sign-in');

    clock.advance(7 * DAY_MS);
    await page.goto(`${dashHost}/plan`);
    expect(new URL(page.url()).host).to.equal(`app.localhost:${port}`);
    await context.close();
  });

  it('a pinned link keeps serving its version after a republish', async () => {
    const store = server.app.container.get<DashboardStore>(DashboardStore);
    const dashboard = await store.findDashboard({ kind: 'workspace', id: (vera.lock as { workspaceId: string }).workspaceId }, 'plan');
    const created = await links().create({ kind: 'operator' }, { workspace: 'acme' }, 'plan', { pinnedVersionId: dashboard!.currentVersionId });
    const { context, page } = await openPage(browser);
    await page.goto(`${dashHost}/_share/${created.token}`);
    expect(await page.locator('#title').textContent()).to.equal('Plan v1');
    await publish('plan', PAGE('v2'));
    await page.reload();
    expect(await page.locator('#title').textContent()).to.equal('Plan v1');
    await page.waitForFunction(() => document.getElementById('data')?.textContent !== 'loading');
    expect(await page.locator('#data').textContent()).to.equal('3 rows');
    await context.close();
  });
});
