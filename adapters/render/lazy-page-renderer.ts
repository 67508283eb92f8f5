import { injectable } from 'inversify';
import type { DashboardSpec, Row } from '../../domain/dashboard-spec.js';
import type { PageRenderer, RenderContext, RenderedPage } from '../../application/ports/page-renderer.js';
import type { EchartsPageRenderer } from './echarts-page-renderer.js';

/**
 * The ECharts renderer, loaded on the first render: ECharts takes about a second to import, which
 * every CLI command and a server that never renders a spec would otherwise pay at start-up.
 */
@injectable()
export class LazyPageRenderer implements PageRenderer {
  private loading: Promise<EchartsPageRenderer> | undefined;

  async render(spec: DashboardSpec, data: Record<string, Row[]>, context: RenderContext): Promise<RenderedPage> {
    this.loading ??= import('./echarts-page-renderer.js').then((module) => new module.EchartsPageRenderer());
    return (await this.loading).render(spec, data, context);
  }
}
