import { expect } from 'chai';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PublishDashboard } from '../../application/dashboards/publish-dashboard.js';
import { AccountStore } from '../../application/ports/account-store.js';
import { launchChromium, openPage, SCREENSHOTS, signUpInBrowser } from '../support/browser.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { startSmtpReceiver, startWebhookReceiver, type MailReceiver, type WebhookReceiver } from '../support/delivery-receivers.js';
import { aPrincipal } from '../support/mothers.js';
import { startFullServer } from '../support/server.js';

const axeSource: string = (createRequire(import.meta.url)('axe-core') as { source: string }).source;
const PASSWORD = 'correct horse battery staple';

/**
 * Issue 33: the dashboard page's Deliver section in Chromium without JavaScript (plain forms): add an email
 * and a webhook subscription (its secret shown once), send now, see a failure with its error, answer a
 * refusal next to its field, remove. axe-core checks the section in light and dark.
 */
describe('e2e: the Deliver section in a real browser', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let server: Awaited<ReturnType<typeof startFullServer>>;
  let hook: WebhookReceiver;
  let smtp: MailReceiver;
  let browser: Browser;
  let scripted: Page;
  let plain: BrowserContext;
  let page: Page;
  let sales: string;
  const rows = () => page.locator('table:has(caption:text("Subscriptions")) tbody tr');

  async function accessible(name: string) {
    await scripted.goto(sales);
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
      await scripted.locator('section.deliver').screenshot({ path: path.join(SCREENSHOTS, `${name}-${suffix}.png`) });
    }
    await scripted.setViewportSize({ width: 1280, height: 900 });
  }

  before(async () => {
    mkdirSync(SCREENSHOTS, { recursive: true });
    const launched = launchChromium();
    database = await createMigratedTestDatabase();
    [hook, smtp] = [await startWebhookReceiver(), await startSmtpReceiver()];
    server = await startFullServer({ DATABASE_URL: database.url, REDIS_URL: '', ALLOW_PRIVATE_WEBHOOKS: 'true', SMTP_URL: smtp.url, MAIL_FROM: 'reports@example.com' });
    sales = `${server.settings.appUrl}/dashboards/ada/sales`;
    browser = await launched;
    ({ page: scripted } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
    await signUpInBrowser(scripted, server.settings.appUrl, { handle: 'ada', email: 'ada@example.com', password: PASSWORD });
    const ada = (await server.server.app.container.get<AccountStore>(AccountStore).findUserByHandle('ada'))!;
    await server.server.app.container.get(PublishDashboard).execute(aPrincipal(ada.id), { path: 'sales', body: '<h1>Sales</h1>', visibility: 'private', name: 'Sales' });
    plain = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 1280, height: 900 } });
    page = await plain.newPage();
    await page.goto(`${server.settings.appUrl}/sign-in`);
    await page.getByLabel('Email').fill('ada@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.settings.appUrl}/account`);
  });
  after(async () => {
    await plain?.close();
    await browser?.close();
    await server?.close();
    await hook?.close();
    await smtp?.close();
    await database?.drop();
  });

  it('adds an email subscription, answers a refusal next to its field, and sends now', async () => {
    await page.goto(sales);
    expect(await page.locator('#deliver').textContent()).to.equal('Deliver');
    expect(await page.getByText('No subscriptions yet.').count()).to.equal(1);
    await page.getByLabel('Send by').selectOption('email');
    await page.getByLabel('Address or webhook URL').fill('stranger@example.org');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Add subscription' }).click()]);
    expect(await page.locator('#deliver-target-error').textContent()).to.contain('only to its owner\'s address');
    expect(await page.getByLabel('Address or webhook URL').inputValue()).to.equal('stranger@example.org');
    await page.getByLabel('Address or webhook URL').fill('ada@example.com');
    await page.getByLabel('Schedule (optional)').fill('0 8 * * 1');
    await page.getByLabel('Zone (IANA, default UTC)').fill('Europe/Paris');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Add subscription' }).click()]);
    expect(await page.locator('.notice').textContent()).to.equal('Subscription added.');
    expect(await rows().first().textContent()).to.contain('ada@example.com').and.contain('0 8 * * 1').and.contain('Europe/Paris').and.contain('active');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Send now subscription Email ada@example.com' }).click()]);
    expect(await page.locator('.notice').textContent()).to.equal('Sent.');
    expect(smtp.mails.map((m) => m.subject)).to.have.length(1);
    expect(await rows().first().textContent()).to.contain('sent ');
  });

  it('adds a webhook with its secret shown once, shows a failed send with its error, and removes it', async () => {
    await page.getByLabel('Send by').selectOption('webhook');
    await page.getByLabel('Address or webhook URL').fill(`${hook.url}/in`);
    const [answer] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Add subscription' }).click()]);
    expect(answer!.headers()['cache-control']).to.equal('no-store');
    const secret = await page.getByLabel('Its signing secret; copy it now, it is not shown again').inputValue();
    expect(secret).to.match(/^[A-Za-z0-9_-]{43}$/);
    await accessible('dashboard-deliver-created');
    await page.goto(sales);
    expect(await page.content()).to.not.contain(secret);
    hook.status = 503;
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: `Send now subscription Webhook ${hook.url}` }).click()]);
    expect(await page.locator('.notice').textContent()).to.contain('The delivery failed');
    expect(await rows().nth(1).textContent()).to.contain('1 failure in a row').and.contain('the webhook answered HTTP 503');
    await accessible('dashboard-deliver');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: `Remove subscription Webhook ${hook.url}` }).click()]);
    expect(await page.locator('.notice').textContent()).to.equal('Subscription removed: nothing more is sent to it.');
    expect(await rows().count()).to.equal(1);
  });
});
