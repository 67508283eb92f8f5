import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { PublishDashboard } from '../../application/dashboards/publish-dashboard.js';
import { AccountStore } from '../../application/ports/account-store.js';
import { escapeHtml } from '../../domain/html.js';
import { launchChromium, openPage, SCREENSHOTS, signUpInBrowser } from '../support/browser.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { hostRequest } from '../support/hosting-http.js';
import { aPrincipal, aWorkspace, workspaceLock } from '../support/mothers.js';
import { csrfOf, WebClient } from '../support/oauth-server.js';
import { listen, startFullServer, type Listening } from '../support/server.js';

const axeSource: string = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
const PASSWORD = 'a long enough password';
const MARKER = 'Quarterly numbers';

/**
 * The embed part of a dashboard's Share section in Chromium (the app's CSP lets no script run), on PostgreSQL: turning
 * embedding on (the secret shown once), allowing an origin, a test URL a page on that origin frames,
 * rotating the secret, turning it off; refusals beside their form; axe-core in light and dark. Another
 * person, and a workspace member who is not its admin, can change nothing.
 */
describe('e2e: embed settings in the web app (Chromium)', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let server: Awaited<ReturnType<typeof startFullServer>>;
  let hostPages: Listening;
  let browser: Browser;
  let page: Page;
  let app: string;
  let partner: string;
  let firstUrl: string;
  const dashboardPage = () => `${app}/dashboards/ada/numbers`;

  async function accessible(name: string) {
    for (const scheme of ['dark', 'light'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      await page.evaluate(axeSource);
      const results = await page.evaluate(() =>
        (window as unknown as { axe: { run(context: Document, options: object): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }> }> } }).axe.run(document, {
          iframes: false,
          runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] },
        }),
      );
      const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(bad.map((v) => `${v.id} (${v.impact}): ${JSON.stringify(v.nodes.map((n) => n.target))}`), `axe on ${name} (${scheme})`).to.deep.equal([]);
    }
    await page.locator('#embed').screenshot({ path: path.join(SCREENSHOTS, `embed-${name}.png`) }).catch(() => undefined);
  }

  const secretShown = async () => (await page.getByLabel('New embed secret').textContent())!.trim();

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const launched = launchChromium();
    database = await createMigratedTestDatabase();
    server = await startFullServer({ DATABASE_URL: database.url, REDIS_URL: '' });
    app = server.settings.appUrl;
    hostPages = await listen(async (ctx) => {
      ctx.type = 'html';
      ctx.body = `<!doctype html><title>Partner</title><iframe title="dashboard" src="${escapeHtml(String(ctx.query.src))}"></iframe>`;
    });
    partner = `http://partner.localhost:${hostPages.port}`;
    browser = await launched;
    ({ page } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
    await signUpInBrowser(page, app, { handle: 'ada', email: 'ada@example.com', password: PASSWORD });
    const accounts = server.server.app.container.get<AccountStore>(AccountStore);
    const ada = (await accounts.findUserByHandle('ada'))!;
    const publish = server.server.app.container.get(PublishDashboard);
    await publish.execute(aPrincipal(ada.id), { path: 'numbers', body: `<!doctype html><title>Numbers</title><p id="marker">${MARKER}</p>` });
    const acme = await aWorkspace(accounts, { slug: 'acme', name: 'Acme' });
    await accounts.addMember(acme.id, ada.id, 'member');
    await publish.execute(aPrincipal(ada.id, { lock: workspaceLock(acme) }), { path: 'roadmap', body: '<p>Roadmap</p>' });
  });

  after(async () => {
    await browser?.close();
    await hostPages?.close();
    await server?.close();
    await database?.drop();
  });

  it('shows embedding off, and the public preview frames from the web app (the only other origin allowed to)', async () => {
    await page.goto(dashboardPage());
    expect(await page.locator('#embed').count()).to.equal(1);
    expect(await page.locator('#embed + p').textContent()).to.contain('No other site can frame this dashboard.');
    const preview = page.frames().find((f) => f !== page.mainFrame())!;
    await preview.waitForLoadState('load');
    expect(await preview.locator('#marker').textContent()).to.equal(MARKER);
    await accessible('off');
  });

  it('turns embedding on and shows the new secret once', async () => {
    await page.getByRole('button', { name: 'Turn embedding on' }).click();
    const secret = await secretShown();
    expect(secret).to.match(/^[A-Za-z0-9_-]{43}$/);
    await accessible('secret');
    await page.goto(dashboardPage());
    expect(await page.content()).to.not.contain(secret);
    expect(await page.locator('#embed + p').textContent()).to.contain('Pages on the origins below can frame this dashboard');
  });

  it('refuses what is not an origin beside the field, then allows one', async () => {
    await page.getByLabel('Origin allowed to frame it').fill('https://partner.example/some/page');
    await page.getByRole('button', { name: 'Allow origin' }).click();
    expect(await page.locator('#embed-origins-error').textContent()).to.contain('must be a scheme and host like https://example.com');
    expect(await page.getByLabel('Origin allowed to frame it').getAttribute('aria-invalid')).to.equal('true');
    await accessible('refused');
    await page.getByLabel('Origin allowed to frame it').fill(partner);
    await page.getByRole('button', { name: 'Allow origin' }).click();
    await page.waitForURL(/done=embed-origins/);
    expect(await page.getByRole('status').first().textContent()).to.equal('Allowed origins saved.');
    expect(await page.locator('#embed-origins code').allTextContents()).to.deep.equal([partner]);
  });

  it('makes a test URL that a page on the allowed origin frames', async () => {
    await page.getByLabel('Valid for').selectOption('1h');
    await page.getByRole('button', { name: 'Make a test URL' }).click();
    firstUrl = (await page.getByLabel('Signed embed URL').textContent())!.trim();
    expect(firstUrl).to.match(/\/_embed\/numbers\?exp=\d+&sig=[0-9a-f]{64}$/);
    await accessible('url');
    const { context, page: host } = await openPage(browser);
    await host.goto(`${partner}/?src=${encodeURIComponent(firstUrl)}`);
    await host.waitForLoadState('load');
    const frame = host.frames().find((f) => f !== host.mainFrame())!;
    expect(await frame.evaluate(() => document.getElementById('marker')?.textContent)).to.equal(MARKER);
    await context.close();
  });

  it('rotates the secret: a new one is shown and the earlier URL gets 404', async () => {
    await page.goto(dashboardPage());
    await page.getByRole('button', { name: 'Rotate secret' }).click();
    expect(await secretShown()).to.match(/^[A-Za-z0-9_-]{43}$/);
    const url = new URL(firstUrl);
    expect((await hostRequest(server.port, url.host, url.pathname + url.search)).status).to.equal(404);
  });

  it('removes the origin and turns embedding off', async () => {
    await page.goto(dashboardPage());
    await page.getByRole('button', { name: `Remove ${partner}` }).click();
    await page.waitForURL(/done=embed-origins/);
    expect(await page.locator('#embed-origins code').count()).to.equal(0);
    await page.getByRole('button', { name: 'Turn embedding off' }).click();
    await page.waitForURL(/done=embed-off/);
    expect(await page.getByRole('status').first().textContent()).to.contain('Embedding is off');
    expect(await page.getByText('Turn embedding on to make a signed URL.').count()).to.equal(1);
  });

  it('shows no embed settings to a workspace member who is not its admin, and refuses their forms as missing', async () => {
    await page.goto(`${app}/dashboards/acme/roadmap`);
    expect(await page.locator('#embed').count()).to.equal(0);
    const web = new WebClient(server.url, server.hosts.app);
    await web.post('/sign-in', { csrf: csrfOf(await web.get('/sign-in')), email: 'ada@example.com', password: PASSWORD, return_to: '/dashboards' });
    const missing = await web.get('/dashboards/ada/no-such-dashboard');
    const csrf = csrfOf(await web.get('/account'));
    const res = await web.post('/dashboards/acme/roadmap/embed/switch', { csrf, enabled: 'on' });
    expect([res.status, res.text]).to.deep.equal([404, missing.text]);
  });

  it("lets another person change nothing on someone else's dashboard: the missing page for every form", async () => {
    const bob = new WebClient(server.url, server.hosts.app);
    await bob.post('/sign-up', { csrf: csrfOf(await bob.get('/sign-up')), handle: 'bob', email: 'bob@example.com', password: PASSWORD });
    const missing = await bob.get('/dashboards/ada/no-such-dashboard');
    const csrf = csrfOf(await bob.get('/account'));
    for (const [step, fields] of [
      ['switch', { enabled: 'on' }],
      ['origins', { origin: 'https://evil.example' }],
      ['origins/remove', { origin: partner }],
      ['secret', {}],
      ['url', { expires: '1h' }],
    ] as const) {
      const res = await bob.post(`/dashboards/ada/numbers/embed/${step}`, { csrf, ...fields });
      expect([res.status, res.text], step).to.deep.equal([404, missing.text]);
    }
    const forged = await bob.post('/dashboards/bob/anything/embed/secret', { csrf: 'forged' });
    expect(forged.status).to.equal(403);
  });
});
