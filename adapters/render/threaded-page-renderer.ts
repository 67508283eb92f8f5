import { Piscina } from 'piscina';
import type { DashboardSpec, Row } from '../../domain/dashboard-spec.js';
import type { PageRenderer, RenderContext, RenderedPage } from '../../application/ports/page-renderer.js';
import type { RenderTask } from './render-worker.js';

/** An idle render thread stays this long, so refreshes and parameter pages close together skip ECharts' second of loading. */
const IDLE_MS = 5 * 60_000;

type Pool = Piscina<RenderTask, RenderedPage>;
/**
 * Render threads belong to the process: renderers asking for as many threads share one pool, whose idle threads
 * stop after IDLE_MS and never keep the process alive. A process runs one service, but tests build many, and
 * each would otherwise load ECharts again.
 */
const pools = new Map<number, Pool>();

function poolOf(threads: number): Pool {
  let pool = pools.get(threads);
  if (pool === undefined) {
    pool = new Piscina({ filename: new URL('./render-worker.js', import.meta.url).href, minThreads: 0, maxThreads: threads, idleTimeout: IDLE_MS });
    pools.set(threads, pool);
  }
  return pool;
}

/**
 * Spec pages drawn on worker threads (RENDER_THREADS of them): a render takes a CPU-bound 100–300 ms for a
 * large dashboard, which on the event loop would hold up every request the process serves meanwhile. The
 * threads start on the first render and stop when idle, so CLI commands and servers that never draw a spec
 * never load ECharts.
 */
export class ThreadedPageRenderer implements PageRenderer {
  private readonly drawing = new Set<Promise<unknown>>();

  constructor(private readonly threads: number) {}

  render(spec: DashboardSpec, data: Record<string, Row[]>, context: RenderContext): Promise<RenderedPage> {
    const page = poolOf(this.threads).run({ spec, data, context });
    const settled = page.then(() => undefined, () => undefined);
    this.drawing.add(settled);
    void settled.then(() => this.drawing.delete(settled));
    return page;
  }

  /**
   * Waits for this renderer's renders in progress, so a shutdown loses no refresh. The threads are left to
   * stop when idle; piscina's own close would also end a render still queued for a starting thread.
   */
  async close(): Promise<void> {
    while (this.drawing.size > 0) await Promise.all(this.drawing);
  }
}
