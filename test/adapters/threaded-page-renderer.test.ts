import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { parseDashboardSpec, type DashboardSpec, type Row } from '../../domain/dashboard-spec.js';
import { EchartsPageRenderer } from '../../adapters/render/echarts-page-renderer.js';
import { LazyPageRenderer } from '../../adapters/render/lazy-page-renderer.js';
import { ThreadedPageRenderer } from '../../adapters/render/threaded-page-renderer.js';
import { PageRenderer, type RenderContext } from '../../application/ports/page-renderer.js';
import { loadSettings } from '../../shells/config.js';
import { buildContainer } from '../../shells/container.js';
import { testSettings } from '../support/settings.js';
import { showcaseSpec } from './render-fixture.js';

const context: RenderContext = { fallbackTitle: 'Sales', renderedAt: new Date('2025-06-01T12:30:45Z'), url: 'http://ada.dash.localhost:8787/sales' };
const live = { live: [{ n: 1 }, { n: null }, { n: 'a "quoted" <text>' }, { n: true }] };

const paramSpec = (): DashboardSpec =>
  parseDashboardSpec({
    title: 'By region',
    params: [
      { id: 'region', type: 'select', label: 'Region', default: 'North', options: ['North', 'South'] },
      { id: 'period', type: 'date_range', label: 'Period', default: { from: '2025-01-01', to: '2025-03-31' } },
    ],
    queries: { sales: { sql: 'select region, amount from sales where region = :region and day between :period.from and :period.to' } },
    panels: [{ id: 'amounts', type: 'bar', query: 'sales', x: 'region', y: 'amount' }],
  });

/** Thousands of points over five drawings: tens of milliseconds of drawing, far longer than one turn of the loop. */
const heavySpec = (): DashboardSpec =>
  parseDashboardSpec({
    title: 'Heavy',
    data: { d: Array.from({ length: 4000 }, (_, i) => ({ x: i, y: (i * 7919) % 997, z: i % 13 })) },
    panels: [
      { id: 'line', type: 'line', query: 'd', x: 'x', y: ['y', 'z'], width: 12 },
      { id: 'cloud', type: 'scatter', query: 'd', x: 'y', y: 'z', width: 12 },
    ],
  });

/** Whether the render settles before a callback queued behind it on the event loop gets its turn. */
async function settlesBeforeTheLoopTurns(renderer: PageRenderer): Promise<boolean> {
  let turned = false;
  setImmediate(() => (turned = true));
  await renderer.render(heavySpec(), {}, context);
  return !turned;
}

describe('adapters: ThreadedPageRenderer (pages drawn on worker threads)', function () {
  this.timeout(60_000);
  const threaded = new ThreadedPageRenderer(1);
  after(() => threaded.close());

  it('draws the same page and data.json as drawing on the event loop, parameter values included', async () => {
    const here = new EchartsPageRenderer();
    const cases: Array<[DashboardSpec, Record<string, Row[]>, RenderContext['values']]> = [
      [showcaseSpec(), live, undefined],
      [paramSpec(), { sales: [{ region: 'South', amount: 12.5 }] }, { region: 'South', period: { from: '2025-02-01', to: '2025-02-28' } }],
    ];
    for (const [spec, data, values] of cases) {
      const drawn = await threaded.render(spec, data, { ...context, values });
      expect(drawn).to.deep.equal(here.render(spec, data, { ...context, values }));
    }
  });

  it('leaves the event loop free while it draws, where the renderer on the loop holds it', async () => {
    const onLoop = new LazyPageRenderer();
    await onLoop.render(heavySpec(), {}, context);
    await threaded.render(heavySpec(), {}, context);
    expect(await settlesBeforeTheLoopTurns(onLoop)).to.equal(true);
    expect(await settlesBeforeTheLoopTurns(threaded)).to.equal(false);
  });

  it('gives a render that throws back as a refusal of that render only', async () => {
    const broken = { title: 'Broken', panels: null } as unknown as DashboardSpec;
    let refusal: unknown;
    await threaded.render(broken, {}, context).catch((error: unknown) => (refusal = error));
    expect(refusal).to.be.an.instanceOf(Error);
    expect((refusal as Error).message).to.contain('map');
    expect((await threaded.render(showcaseSpec(), live, context)).html).to.contain('Sales overview &lt;Q1 &amp; Q2&gt;');
  });

  it('finishes a render in progress when closed, even one waiting for its thread to start', async () => {
    // Two threads: a pool of its own, whose thread is still starting when the renderer is closed.
    const closing = new ThreadedPageRenderer(2);
    let drawn = '';
    const drawing = closing.render(showcaseSpec(), live, context).then((page) => (drawn = page.html));
    await closing.close();
    expect(drawn).to.contain('<svg');
    await drawing;
  });

  it('shares its threads with the other renderers of the process, which go on drawing when one closes', async () => {
    const other = new ThreadedPageRenderer(1);
    await other.render(showcaseSpec(), live, context);
    await other.close();
    expect((await threaded.render(showcaseSpec(), live, context)).html).to.contain('<svg');
  });

  it('does not keep a finished process alive with its idle thread', () => {
    const script = `
      import { ThreadedPageRenderer } from ${JSON.stringify(new URL('../../adapters/render/threaded-page-renderer.js', import.meta.url).href)};
      import { parseDashboardSpec } from ${JSON.stringify(new URL('../../domain/dashboard-spec.js', import.meta.url).href)};
      const spec = parseDashboardSpec({ title: 'T', data: { d: [{ x: 'a', y: 1 }] }, panels: [{ id: 'p', type: 'bar', query: 'd', x: 'x', y: 'y' }] });
      const page = await new ThreadedPageRenderer(1).render(spec, {}, { fallbackTitle: 'T', renderedAt: new Date(), url: 'http://a.localhost/t' });
      console.log(page.html.includes('<svg') ? 'drawn' : 'not drawn');
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(run.error, 'the process exited by itself').to.equal(undefined);
    expect(run.stdout.trim()).to.equal('drawn');
    expect(run.status).to.equal(0);
  });

  it('is what the composition root binds unless RENDER_THREADS is 0', async () => {
    for (const [renderThreads, kind] of [[1, ThreadedPageRenderer], [0, LazyPageRenderer]] as const) {
      const app = await buildContainer(testSettings({ renderThreads }), { storage: 'memory', refreshWorkers: false });
      try {
        expect(app.container.get<PageRenderer>(PageRenderer)).to.be.an.instanceOf(kind);
      } finally {
        await app.close();
      }
    }
  });

  it('RENDER_THREADS is 1 by default, 0 draws on the event loop, and more than 16 is refused', () => {
    expect(loadSettings({}).renderThreads).to.equal(1);
    expect(loadSettings({ RENDER_THREADS: '0' }).renderThreads).to.equal(0);
    expect(loadSettings({ RENDER_THREADS: ' 4 ' }).renderThreads).to.equal(4);
    for (const wrong of ['17', '-1', '1.5', 'two']) {
      expect(() => loadSettings({ RENDER_THREADS: wrong }), wrong).to.throw('RENDER_THREADS must be a whole number of threads, 0 to 16');
    }
  });
});
