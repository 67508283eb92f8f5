import type { DashboardSpec, Row } from '../../domain/dashboard-spec.js';
import type { ImageTheme } from '../../domain/page-theme.js';

export interface ImageContext {
  /** Used when the spec's title is blank, normally the dashboard's name. */
  fallbackTitle: string;
  /** When the data was drawn, as the page says it. */
  renderedAt: Date;
  theme: ImageTheme;
  /** One panel by its id; the whole dashboard when absent. */
  panelId?: string;
  /** The page rendered from the same data, whose chart drawings the image reuses rather than drawing again. */
  page?: string;
}

/** What the card of a dashboard published as a body shows. */
export interface CardContext {
  name: string;
  /** The handle or workspace slug the dashboard lives under. */
  owner: string;
  publishedAt: Date;
  theme: ImageTheme;
}

export const ImageRenderer = Symbol.for('ImageRenderer');
/**
 * Draws a spec dashboard, or one of its panels, as a PNG from the same data its page shows. Null when
 * `panelId` names no panel of the spec.
 */
export interface ImageRenderer {
  renderPng(spec: DashboardSpec, data: Record<string, Row[]>, context: ImageContext): Promise<Uint8Array | null>;
  /** A 1200 × 630 card for a dashboard published as a body: its name, owner and last publish time. */
  renderCard(card: CardContext): Promise<Uint8Array>;
}
