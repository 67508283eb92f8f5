import { readFileSync } from 'node:fs';
import vm from 'node:vm';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { paramForm } from '../../adapters/render/param-form.js';
import type { DashboardSpec } from '../../domain/dashboard-spec.js';
import { queryOptions, readParamValues } from '../../domain/param-values.js';
import { parseParams } from '../../domain/spec-params.js';
import { launchChromium, openPage } from '../support/browser.js';

/** The compiled browser script, as the view inlines it (shells/koa/mcp/ui/browser-scripts.ts). */
const SCRIPT = readFileSync(new URL('../../shells/koa/mcp/ui/browser/param-controls.js', import.meta.url), 'utf8');

/** One parameter of every type, one select listed by a query, and labels and values that are not markup. */
const PARAMS = parseParams([
  { id: 'region', type: 'select', label: 'Region', default: 'North', options: { query: 'regions' }, required: true },
  { id: 'tags', type: 'multi_select', label: 'Tags', default: ['a', 'c'], options: ['a', 'b', 'c'] },
  { id: 'period', type: 'date_range', label: 'Period', default: '2026-01-01..2026-03-31' },
  { id: 'day', type: 'date', label: 'Day', default: '2026-02-01' },
  { id: 'n', type: 'number', label: 'Top <i>n</i>', default: 3, min: 0, max: 10 },
  { id: 'q', type: 'text', label: 'Search', default: 'x<y & "z"' },
  { id: 'any', type: 'select', options: ['p', 'q'] },
]);
const DATA = { regions: [{ region: 'North' }, { region: 'South' }, { region: 'Middle East & Africa' }] };
/** The page as the renderer draws its form, with something after it that must stay. */
const PAGE = `<!doctype html><html><body><h1>T</h1>${paramForm({ params: PARAMS } as DashboardSpec, new Map(Object.entries(DATA)), undefined)}<p id="after">rest</p></body></html>`;

/** `queryOf` alone, in a bare script context: the values in, the query string out. */
function queryOf(pairs: Array<[string, string]>): string {
  const context = vm.createContext({ URLSearchParams });
  vm.runInContext(SCRIPT, context);
  return vm.runInContext('DASHPUB_PARAMS.queryOf', context)(pairs);
}

describe('shells: the in-chat view\'s parameter controls (decision 0283)', function () {
  this.timeout(60_000);

  describe('queryOf', () => {
    it('writes a date range with both ends as one id=from..to, the shareable form', () => {
      expect(queryOf([['region', 'South'], ['period.from', '2026-01-01'], ['period.to', '2026-03-31']])).to.equal('region=South&period=2026-01-01..2026-03-31');
    });

    it('keeps a range with an end missing as the form sends it, so the host can name what is wrong', () => {
      expect(queryOf([['period.from', ''], ['period.to', '2026-03-31']])).to.equal('period.from=&period.to=2026-03-31');
    });

    it('encodes every value, repeats a list\'s name, and writes nothing that could leave the query string', () => {
      const query = queryOf([['tags', 'a&b=c'], ['tags', '#x?'], ['q', '<script> "1" \'2\'']]);
      expect(query).to.equal('tags=a%26b%3Dc&tags=%23x%3F&q=%3Cscript%3E+%221%22+%272%27');
      expect([...new URLSearchParams(query)]).to.deep.equal([['tags', 'a&b=c'], ['tags', '#x?'], ['q', '<script> "1" \'2\'']]);
    });
  });

  describe('in Chromium, from the form the page renderer draws', () => {
    let browser: Browser;
    let page: Page;

    before(async () => {
      browser = await launchChromium();
      page = (await openPage(browser)).page;
      await page.setContent('<!doctype html><html><body><main id="root"></main></body></html>');
      await page.addScriptTag({ content: SCRIPT });
      await page.evaluate((html) => {
        const g = globalThis as any;
        const doc = new g.DOMParser().parseFromString(html, 'text/html');
        const groups = g.DASHPUB_PARAMS.takeForm(doc);
        g.left = doc.body.innerHTML;
        g.document.getElementById('root').replaceChildren(...g.DASHPUB_PARAMS.build(groups));
      }, PAGE);
    });
    after(async () => {
      await browser?.close();
    });

    it('takes the form out of the page and leaves the rest', async () => {
      expect(await page.evaluate(() => (globalThis as any).left)).to.equal('<h1>T</h1><p id="after">rest</p>');
      expect(await page.evaluate(() => (globalThis as any).DASHPUB_PARAMS.takeForm(new (globalThis as any).DOMParser().parseFromString('<p>x</p>', 'text/html')))).to.equal(null);
    });

    it('shows one labelled control per parameter, with the page form\'s types, options, bounds and defaults', async () => {
      expect(await page.locator('.param-name').allTextContents()).to.deep.equal(['Region', 'Tags', 'Period', 'Day', 'Top <i>n</i>', 'Search', 'any']);
      expect(await page.locator('#root i, #root script').count()).to.equal(0);
      const region = page.getByLabel('Region');
      expect([await region.inputValue(), await region.getAttribute('required')]).to.deep.equal(['North', '']);
      expect(await region.locator('option').allTextContents()).to.deep.equal(['North', 'South', 'Middle East & Africa']);
      const tags = page.getByLabel('Tags');
      expect(await tags.evaluate((s: any) => [s.multiple, [...s.selectedOptions].map((o: any) => o.value)])).to.deep.equal([true, ['a', 'c']]);
      expect(await page.getByLabel('Period from').inputValue()).to.equal('2026-01-01');
      expect(await page.getByLabel('Period to').inputValue()).to.equal('2026-03-31');
      expect(await page.getByLabel('Day').evaluate((i: any) => [i.type, i.value])).to.deep.equal(['date', '2026-02-01']);
      const n = page.locator('input[type="number"]');
      expect(await n.evaluate((i: any) => [i.value, i.min, i.max, i.step])).to.deep.equal(['3', '0', '10', 'any']);
      expect(await page.getByLabel('Search').evaluate((i: any) => [i.type, i.value, i.maxLength])).to.deep.equal(['text', 'x<y & "z"', 200]);
      const any = page.getByLabel('any');
      expect([await any.inputValue(), await any.locator('option').allTextContents()]).to.deep.equal(['', ['(any)', 'p', 'q']]);
    });

    it('gives a query string that the host reads back as exactly the values chosen', async () => {
      await page.getByLabel('Region').selectOption('Middle East & Africa');
      await page.getByLabel('Tags').selectOption(['b']);
      await page.getByLabel('Period from').fill('2026-02-01');
      await page.getByLabel('Search').fill('a&b=c');
      await page.getByLabel('any').selectOption('q');
      const query: string = await page.evaluate(() => {
        const p = (globalThis as any).DASHPUB_PARAMS;
        return p.queryOf(p.pairsOf((globalThis as any).document.getElementById('root')));
      });
      expect(query).to.equal('region=Middle+East+%26+Africa&tags=b&period=2026-02-01..2026-03-31&day=2026-02-01&n=3&q=a%26b%3Dc&any=q');
      const read = readParamValues(PARAMS, [...new URLSearchParams(query)], (param) => queryOptions(param, DATA));
      expect(read.notices).to.deep.equal([]);
      expect(read.values).to.deep.equal({
        region: 'Middle East & Africa', tags: ['b'], period: { from: '2026-02-01', to: '2026-03-31' }, day: '2026-02-01', n: 3, q: 'a&b=c', any: 'q',
      });
    });
  });
});
