import type { DashboardSpec, Row } from '../../domain/dashboard-spec.js';
import type { RenderContext, RenderedPage } from '../../application/ports/page-renderer.js';
import { EchartsPageRenderer } from './echarts-page-renderer.js';

/** What the page renderer hands a render thread: plain data, copied by structured clone. */
export interface RenderTask {
  spec: DashboardSpec;
  data: Record<string, Row[]>;
  context: RenderContext;
}

const renderer = new EchartsPageRenderer();

/** A render thread's task (piscina calls the default export): ECharts loads once per thread, with this module. */
export default function render(task: RenderTask): RenderedPage {
  return renderer.render(task.spec, task.data, task.context);
}
