import { expect } from 'chai';
import type { Browser } from 'playwright-core';
import { launchChromium, openPage } from '../support/browser.js';
import { paramWorld, type ParamWorld } from '../support/param-fixtures.js';

/** Counts the owner's own dashboards on `self`, filtered by a select, a date range and a number. */
const countsSpec = () => ({
  title: 'My dashboards',
  queries: {
    n: {
      sql: `SELECT count(*) AS dashboards FROM dashboards
             WHERE visibility = :vis AND created_at::date BETWEEN :period.from AND :period.to AND length(slug) >= :min_len`,
    },
  },
  params: [
    { id: 'vis', type: 'select', label: 'Visibility', options: ['public', 'private'], default: 'public', required: true },
    { id: 'period', type: 'date_range', label: 'Created', default: '2000-01-01..2100-01-01' },
    { id: 'min_len', type: 'number', label: 'Shortest slug', default: 1, min: 0 },
  ],
  panels: [{ id: 'count', type: 'stat', title: 'Dashboards', query: 'n', value: 'dashboards' }],
});

/**
 * Issue 34's acceptance in Chromium with JavaScript off: a spec with select, date_range and number
 * parameters on `self` shows its form; choosing other values draws other numbers at a URL that opens the
 * same numbers elsewhere; invalid values show the defaults and a notice.
 */
describe('e2e: parameter form in a real browser without JavaScript', function () {
  this.timeout(180_000);
  let world: ParamWorld;
  let browser: Browser;

  before(async () => {
    const launched = launchChromium();
    world = await paramWorld({}, { browser: true });
    const inline = { data: { d: [{ n: 1 }] }, panels: [{ id: 's', type: 'stat', query: 'd', value: 'n' }] };
    await world.publish('alpha', { title: 'Alpha', ...inline }, 'self', { visibility: 'public' });
    await world.publish('bravo', { title: 'Bravo', ...inline }, 'self', { visibility: 'public' });
    await world.publish('a-private-one', { title: 'Hidden', ...inline }, 'self', { visibility: 'private' });
    await world.publish('counts', countsSpec(), 'self', { visibility: 'public' });
    browser = await launched;
  });
  after(async () => {
    await browser?.close();
    await world?.close();
  });

  it('shows the form, draws other numbers for other values at a shareable URL, and explains invalid ones', async () => {
    const { context, page } = await openPage(browser, { javaScriptEnabled: false });
    try {
      await page.goto(world.url('/counts'));
      const tile = page.locator('.stat-value');
      const defaults = await tile.textContent();
      expect(Number(defaults)).to.be.at.least(2);
      expect(await page.getByLabel('Visibility').inputValue()).to.equal('public');
      expect(await page.getByLabel('Created from').inputValue()).to.equal('2000-01-01');
      expect(await page.getByLabel('Shortest slug').inputValue()).to.equal('1');

      await page.getByLabel('Visibility').selectOption('private');
      await page.getByLabel('Shortest slug').fill('5');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.waitForURL(/vis=private/);
      const shared = page.url();
      expect(new URL(shared).searchParams.get('min_len')).to.equal('5');
      expect(await tile.textContent()).to.equal('1');

      const other = await openPage(browser, { javaScriptEnabled: false });
      await other.page.goto(shared);
      expect(await other.page.locator('.stat-value').textContent()).to.equal('1');
      expect(await other.page.getByLabel('Visibility').inputValue()).to.equal('private');
      await other.context.close();

      await page.goto(world.url('/counts?vis=secret&min_len=lots'));
      expect(await tile.textContent()).to.equal(defaults);
      const notices = await page.locator('.notice').allTextContents();
      expect(notices).to.deep.equal([
        'Visibility: "secret" is not one of the options; showing the default',
        'Shortest slug: "lots" is not a number; showing the default',
      ]);
      expect(await page.locator('script').count()).to.equal(0);
    } finally {
      await context.close();
    }
  });
});
