/**
 * Patch and summary benchmark: bytes, not time. The render benchmark's six panels over its 10,000 rows, carried
 * as inline data by a spec published through the real tool registry (memory storage), then:
 *  - get_dashboard with `summary: true` against get_dashboard with the full spec (its answer plus the spec a
 *    client needs to change the dashboard without a summary), target ≤ 2%;
 *  - the arguments of a one-panel change through `patch` against those of republishing the spec, target ≤ 1%.
 * Both patch and summary are called for real, so the answers measured are the ones served.
 *
 *   npm run bench:patch
 */
import { buildContainer } from '../shells/container.js';
import { makeUser, registry, text } from '../test/support/refresh-fixtures.js';
import { testSettings } from '../test/support/settings.js';
import { BENCH_PANELS, generateRows, ROWS } from './render-dashboard.js';
import { fmt, updateLatestResult } from './support.js';

const SUMMARY_TARGET = 0.02;
const PATCH_TARGET = 0.01;
const bytes = (value: unknown) => Buffer.byteLength(typeof value === 'string' ? value : JSON.stringify(value));
const percent = (ratio: number) => `${fmt(ratio * 100, 3)}%`;

const app = await buildContainer(testSettings(), { storage: 'memory', refreshWorkers: false });
try {
  const tools = registry(app.container);
  const { principal } = await makeUser(app.container);
  const spec = { title: 'Benchmark', description: `${ROWS} rows, six panels`, data: { events: generateRows(ROWS) }, panels: BENCH_PANELS };
  const republish = { path: 'bench', spec };
  // Measured before the call: the registry moves the arguments out of the object it is given.
  const republishBytes = bytes(republish);
  const specBytes = bytes(spec);
  const published = await tools.call(principal, 'publish_dashboard', republish);
  if (published.isError) throw new Error(text(published));

  const plain = text(await tools.call(principal, 'get_dashboard', { slug: 'bench' }));
  const summarized = await tools.call(principal, 'get_dashboard', { slug: 'bench', summary: true });
  if (summarized.isError) throw new Error(text(summarized));
  const full = bytes(plain) + specBytes;
  const summary = bytes(text(summarized));

  const patch = { path: 'bench', patch: [{ op: 'replace_panel', id: 'area', panel: { type: 'area', title: 'Cost, daily', query: 'events', x: 'day', y: 'cost', width: 6 } }] };
  const patchBytes = bytes(patch);
  const patched = await tools.call(principal, 'publish_dashboard', patch);
  if (patched.isError) throw new Error(text(patched));

  const summaryRatio = summary / full;
  const patchRatio = patchBytes / republishBytes;
  console.log(`| measure | bytes | against | ratio | target |`);
  console.log(`|---|---|---|---|---|`);
  console.log(`| get_dashboard summary | ${summary} | ${full} (full spec ${specBytes} + answer ${bytes(plain)}) | ${percent(summaryRatio)} | ≤ ${SUMMARY_TARGET * 100}% ${summaryRatio <= SUMMARY_TARGET ? 'met' : 'MISSED'} |`);
  console.log(`| one-panel patch | ${patchBytes} | ${republishBytes} (republishing the spec) | ${percent(patchRatio)} | ≤ ${PATCH_TARGET * 100}% ${patchRatio <= PATCH_TARGET ? 'met' : 'MISSED'} |`);
  updateLatestResult('patch-summary', `**${percent(summaryRatio)}**: ${summary} bytes against ${full} (the spec ${specBytes}, the answer ${bytes(plain)})`);
  updateLatestResult('patch-bytes', `**${percent(patchRatio)}**: ${patchBytes} bytes of arguments against ${republishBytes}`);
} finally {
  await app.close();
}
