import { dashboardViewHtml, type ViewSettings } from './dashboard-view-html.js';

/**
 * The MCP Apps view (the `io.modelcontextprotocol/ui` extension) that shows a dashboard inside the
 * conversation. Hosts that support the extension render it for the tools that declare it; every other
 * client sees the tools exactly as before. docs/decisions/0026-mcp-apps-view.md says how it works.
 */

/** What the extension requires of an HTML view resource. */
export const MCP_APP_MIME_TYPE = 'text/html;profile=mcp-app';

export const dashboardViewUri = (serviceName: string) => `ui://${serviceName}/dashboard.html`;

/** The tools whose answer is one dashboard: the view shows it. */
export const DASHBOARD_VIEW_TOOLS = ['publish_dashboard', 'get_dashboard', 'get_dashboard_version', 'restore_dashboard_version'] as const;

/**
 * A tool definition's `_meta` naming the view: `ui.resourceUri`, and the older flat key
 * `ui/resourceUri` that hosts built before the stable specification still read.
 */
export function dashboardViewToolMeta(serviceName: string): Record<string, unknown> {
  const uri = dashboardViewUri(serviceName);
  return { ui: { resourceUri: uri }, 'ui/resourceUri': uri };
}

export interface ViewResourceContents {
  uri: string;
  mimeType: string;
  text: string;
  _meta: { ui: { prefersBorder: boolean } };
}

/**
 * The resources/read answer for the view. No `csp` is declared: the view needs nothing beyond the
 * extension's restrictive default (inline script and style, data: images, no network).
 */
export function dashboardViewResource(settings: ViewSettings): ViewResourceContents {
  return {
    uri: dashboardViewUri(settings.serviceName),
    mimeType: MCP_APP_MIME_TYPE,
    text: dashboardViewHtml(settings),
    _meta: { ui: { prefersBorder: true } },
  };
}
