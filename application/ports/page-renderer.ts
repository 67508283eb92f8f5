import type { DashboardSpec, Row } from '../../domain/dashboard-spec.js';
import type { ParamValues } from '../../domain/spec-params.js';

export interface RenderContext {
  /** Used when the spec's title is blank, normally the dashboard's name. */
  fallbackTitle: string;
  renderedAt: Date;
  /** The dashboard's canonical URL; the page links its data.json from here. */
  url: string;
  /** The parameter values the page is drawn with, when not the defaults. */
  values?: ParamValues;
}

export interface RenderedPage {
  /** index.html: self-contained, no script, strict CSP in a meta tag. */
  html: string;
  /** data.json: `{ renderedAt, data }`, the rows the page was drawn from. */
  dataJson: string;
}

export const PageRenderer = Symbol.for('PageRenderer');
/**
 * Draws a validated spec. `data` holds query results by query id; a panel whose id is absent there
 * falls back to the spec's inline `data`, and shows an empty state when neither has it.
 */
export interface PageRenderer {
  render(spec: DashboardSpec, data: Record<string, Row[]>, context: RenderContext): Promise<RenderedPage>;
}
