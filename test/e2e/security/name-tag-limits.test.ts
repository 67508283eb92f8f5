import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, Page } from 'playwright-core';
import { AccountStore } from '../../../application/ports/account-store.js';
import { launchChromium, openPage, signUpInBrowser } from '../../support/browser.js';
import { createMigratedTestDatabase, type TestDatabase } from '../../support/database.js';
import { startFullServer } from '../../support/server.js';
import { mintAccessToken } from '../../support/tokens.js';

type CallResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

/**
 * Issue 30, item 15: 10,000 tags, a 5,000-character tag and a 10,000-character name were accepted and
 * blew up replies and pages. Through the MCP SDK client on PostgreSQL, each over-long value is a tool
 * error naming the field and the limit; values at the limits render clipped, full text in `title`.
 */
describe('security: caps on dashboard names and tags', function () {
  this.timeout(90_000);
  let database: TestDatabase;
  let server: Awaited<ReturnType<typeof startFullServer>>;
  let client: Client;
  let browser: Browser;
  let page: Page;

  const call = async (name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallResult;
    return { isError: result.isError === true, text: result.content[0]!.text };
  };

  before(async () => {
    const launched = launchChromium();
    database = await createMigratedTestDatabase();
    server = await startFullServer({ DATABASE_URL: database.url, REDIS_URL: '' });
    browser = await launched;
    ({ page } = await openPage(browser, { viewport: { width: 1280, height: 900 } }));
    await signUpInBrowser(page, server.settings.appUrl, { handle: 'lena', email: 'lena@example.com', password: 'a long enough password' });
    const container = server.server.app.container;
    const lena = (await container.get<AccountStore>(AccountStore).findUserByHandle('lena'))!;
    const token = (await mintAccessToken(container, { userId: lena.id, lock: { kind: 'personal' } })).access_token;
    client = new Client({ name: 'name-tag-limits', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.settings.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  });
  after(async () => {
    await client?.close();
    await browser?.close();
    await server?.close();
    await database?.drop();
  });

  const body = '<!doctype html><title>t</title><p>hi</p>';
  const manyTags = Array.from({ length: 10_000 }, (_, i) => `t${i}`);

  for (const [tool, base] of [
    ['publish_dashboard', { path: 'capped', body }],
    ['update_dashboard', { slug: 'capped' }],
  ] as const) {
    it(`${tool}: an over-long name, tag or tag list is a tool error naming the field and the limit`, async () => {
      if (tool === 'update_dashboard') expect((await call('publish_dashboard', { path: 'capped', body, name: 'Capped' })).isError).to.equal(false);
      expect(await call(tool, { ...base, name: 'n'.repeat(10_000) })).to.deep.equal({ isError: true, text: 'name exceeds 200-char limit (got 10000)' });
      expect(await call(tool, { ...base, tags: ['ok', 'x'.repeat(5_000)] })).to.deep.equal({ isError: true, text: 'tags[1] exceeds 64-char limit (got 5000)' });
      expect(await call(tool, { ...base, tags: manyTags })).to.deep.equal({ isError: true, text: 'tags exceeds 50-tag limit (got 10000)' });
    });
  }

  it('accepts values at the limits, and the pages clip them with the full text in title, never widening the page', async () => {
    const name = 'N'.repeat(200);
    const tags = Array.from({ length: 50 }, (_, i) => `${i}`.padEnd(64, 'T'));
    const published = await call('publish_dashboard', { path: 'at-limits', body, name, tags });
    expect(published.isError, published.text).to.equal(false);

    await page.goto(`${server.settings.appUrl}/dashboards`);
    const row = page.locator('tr', { has: page.locator('.mono', { hasText: 'at-limits' }) });
    expect(await row.locator('td.name a .clip').getAttribute('title')).to.equal(name);
    const tagTitles = await row.locator('.badge.tag').evaluateAll((els) => els.map((el) => el.getAttribute('title')));
    expect(tagTitles).to.deep.equal(tags);
    // Cut visually: the element is narrower than its text.
    const cut = await row.locator('td.name a .clip').evaluate((el) => el.scrollWidth > el.clientWidth);
    expect(cut).to.equal(true);
    expect(await row.locator('.badge.tag').first().evaluate((el) => el.scrollWidth > el.clientWidth)).to.equal(true);
    const pageWidth = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    expect(pageWidth[0]).to.be.at.most(pageWidth[1]!);

    await page.setViewportSize({ width: 390, height: 900 });
    const phoneWidth = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    expect(phoneWidth[0]).to.be.at.most(phoneWidth[1]!);
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.goto(`${server.settings.appUrl}/dashboards/lena/at-limits`);
    expect(await page.locator('dd .badge.tag').first().getAttribute('title')).to.equal(tags[0]);
    const detailWidth = await page.evaluate(() => [document.documentElement.scrollWidth, document.documentElement.clientWidth]);
    expect(detailWidth[0]).to.be.at.most(detailWidth[1]!);
  });
});
