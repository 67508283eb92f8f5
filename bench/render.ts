/**
 * Spec render benchmark: a 6-panel spec over 10 000 generated rows, rendered many times.
 * Run with `npm run build && node dist/bench/render.js [iterations]`. Not a test.
 */
import { cpus } from 'node:os';
import { parseDashboardSpec } from '../domain/dashboard-spec.js';
import { BENCH_PANELS, generateRows, ROWS } from './render-dashboard.js';
import { EchartsPageRenderer } from '../adapters/render/echarts-page-renderer.js';
import { PngImageRenderer } from '../adapters/render/png-image-renderer.js';
import { dashboardImageSvg } from '../adapters/render/dashboard-image.js';
import { updateLatestResult } from './support.js';
import { LazyPageRenderer } from '../adapters/render/lazy-page-renderer.js';
import { ThreadedPageRenderer } from '../adapters/render/threaded-page-renderer.js';
import type { PageRenderer } from '../application/ports/page-renderer.js';

const iterations = Number(process.argv[2] ?? 40);
const WARMUP = 5;
const TARGET_MS = 150;
/** The PNG of the whole dashboard (composing and rasterising) against its page, measured in the same run. */
const PNG_TARGET_RATIO = 2;
const PNG_ITERATIONS = Math.max(5, Math.ceil(iterations / 4));

const spec = parseDashboardSpec({
  title: 'Benchmark',
  description: `${ROWS} rows, six panels`,
  queries: { events: { sql: 'select * from events' } },
  panels: BENCH_PANELS,
});
const data = { events: generateRows(ROWS) };
const renderer = new EchartsPageRenderer();
const context = { fallbackTitle: 'Benchmark', renderedAt: new Date(), url: 'http://bench.dash.localhost:8787/bench' };

let size = 0;
for (let i = 0; i < WARMUP; i++) renderer.render(spec, data, context);
const times: number[] = [];
for (let i = 0; i < iterations; i++) {
  const started = performance.now();
  const page = renderer.render(spec, data, context);
  times.push(performance.now() - started);
  size = page.html.length;
}
times.sort((a, b) => a - b);
const mean = times.reduce((sum, t) => sum + t, 0) / times.length;
const p95 = times[Math.min(times.length - 1, Math.ceil(times.length * 0.95) - 1)]!;
const fmt = (ms: number) => ms.toFixed(1);

console.log(`Spec render: 6 panels over ${ROWS} rows, ${iterations} iterations after ${WARMUP} warm-up (${process.version}, ${cpus()[0]?.model ?? 'cpu'} x${cpus().length})`);
console.log(`| mean | p95 | min | max | index.html | target |`);
console.log(`|---|---|---|---|---|---|`);
console.log(`| ${fmt(mean)} ms | ${fmt(p95)} ms | ${fmt(times[0]!)} ms | ${fmt(times.at(-1)!)} ms | ${(size / 1024).toFixed(0)} KiB | < ${TARGET_MS} ms ${mean < TARGET_MS ? 'met' : 'MISSED'} |`);
updateLatestResult('render', `mean **${fmt(mean)} ms**, p95 ${fmt(p95)} ms`);

// The PNG case: the same spec and rows composed as the 1200 px image, reusing the page's chart drawings,
// and rasterised, as the image host does on a first request; interleaved with page renders so both see
// the same machine state.
const images = new PngImageRenderer();
await images.renderPng(spec, data, { ...context, theme: 'light', page: renderer.render(spec, data, context).html });
const pageTimes: number[] = [];
const pngTimes: number[] = [];
/** The image SVG alone (the page's drawings placed, the rest drawn): what the PNG costs before resvg. */
const drawTimes: number[] = [];
let pngBytes = 0;
for (let i = 0; i < PNG_ITERATIONS; i++) {
  let started = performance.now();
  const { html } = renderer.render(spec, data, context);
  pageTimes.push(performance.now() - started);
  const theme = i % 2 === 0 ? 'light' : 'dark';
  started = performance.now();
  dashboardImageSvg(spec, data, { ...context, theme, page: html });
  drawTimes.push(performance.now() - started);
  started = performance.now();
  pngBytes = (await images.renderPng(spec, data, { ...context, theme, page: html }))!.byteLength;
  pngTimes.push(performance.now() - started);
}
const meanOf = (list: number[]) => list.reduce((sum, t) => sum + t, 0) / list.length;
const ratio = meanOf(pngTimes) / meanOf(pageTimes);
console.log(`\nPNG of the whole dashboard (1200 px, light and dark alternating), ${PNG_ITERATIONS} iterations interleaved with page renders`);
const rasterRatio = (meanOf(pngTimes) - meanOf(drawTimes)) / meanOf(pageTimes);
console.log(`| page mean | PNG mean | of which the image SVG | ratio | resvg alone | PNG size | target |`);
console.log(`|---|---|---|---|---|---|---|`);
console.log(
  `| ${fmt(meanOf(pageTimes))} ms | ${fmt(meanOf(pngTimes))} ms | ${fmt(meanOf(drawTimes))} ms | ${ratio.toFixed(2)}× | ${rasterRatio.toFixed(2)}× | ${(pngBytes / 1024).toFixed(0)} KiB | ≤ ${PNG_TARGET_RATIO}× ${ratio <= PNG_TARGET_RATIO ? 'met' : 'MISSED'} |`,
);
updateLatestResult(
  'render-png',
  `**${ratio.toFixed(2)}×** the page, composing and rasterising (PNG ${fmt(meanOf(pngTimes))} ms against ${fmt(meanOf(pageTimes))} ms, of which the image SVG ${fmt(meanOf(drawTimes))} ms); rasterising alone ${rasterRatio.toFixed(2)}×; ${(pngBytes / 1024).toFixed(0)} KiB`,
);

// The event loop while pages render: drawn on it (LazyPageRenderer) against drawn on a render thread
// (ThreadedPageRenderer, RENDER_THREADS=1), interleaved. A 1 ms timer stands for the requests the process
// serves meanwhile; its longest wait is how long a request could be held up by a render.
const STALL_ROUNDS = 5;
const STALL_RENDERS = 6;
const STALL_TARGET_RATIO = 0.2;
const onLoop = new LazyPageRenderer();
const threaded = new ThreadedPageRenderer(1);
for (const kind of [onLoop, threaded]) await kind.render(spec, data, context);

async function longestStall(kind: PageRenderer): Promise<{ stallMs: number; renderMs: number }> {
  let longest = 0;
  let last = performance.now();
  let ticking = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (ticking) setTimeout(tick, 1);
  };
  setTimeout(tick, 1);
  const started = performance.now();
  for (let i = 0; i < STALL_RENDERS; i++) {
    await kind.render(spec, data, context);
    await new Promise((resolve) => setImmediate(resolve));
  }
  const renderMs = (performance.now() - started) / STALL_RENDERS;
  ticking = false;
  return { stallMs: longest, renderMs };
}
const stalls = { onLoop: [] as number[], threaded: [] as number[] };
const walls = { onLoop: [] as number[], threaded: [] as number[] };
for (let round = 0; round < STALL_ROUNDS; round++) {
  for (const [name, kind] of [['onLoop', onLoop], ['threaded', threaded]] as const) {
    const { stallMs, renderMs } = await longestStall(kind);
    stalls[name].push(stallMs);
    walls[name].push(renderMs);
  }
}
await threaded.close();
const median = (list: number[]) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)]!;
const stallRatio = median(stalls.threaded) / median(stalls.onLoop);
const wallRatio = median(walls.threaded) / median(walls.onLoop);
console.log(`\nThe event loop while pages render, ${STALL_ROUNDS} interleaved rounds of ${STALL_RENDERS} renders, medians`);
console.log(`| longest wait on the loop | on a render thread | ratio | time per render, thread ÷ loop | target |`);
console.log(`|---|---|---|---|---|`);
console.log(
  `| ${fmt(median(stalls.onLoop))} ms | ${fmt(median(stalls.threaded))} ms | ${stallRatio.toFixed(2)}× | ${wallRatio.toFixed(2)}× | ≤ ${STALL_TARGET_RATIO}× ${stallRatio <= STALL_TARGET_RATIO ? 'met' : 'MISSED'} |`,
);
updateLatestResult(
  'render-thread',
  `**${stallRatio.toFixed(2)}×**: the loop waits at most ${fmt(median(stalls.threaded))} ms against ${fmt(median(stalls.onLoop))} ms; a render takes ${wallRatio.toFixed(2)}× as long (${fmt(median(walls.threaded))} against ${fmt(median(walls.onLoop))} ms)`,
);
