import type { Settings } from '../../../application/ports/settings.js';

/** The owner's page in the web app, where a dashboard's share links are made and managed (never over MCP). */
export const sharePageUrl = (settings: Pick<Settings, 'appUrl'>, subdomain: string, slug: string): string =>
  `${settings.appUrl}/dashboards/${encodeURIComponent(subdomain)}/${encodeURIComponent(slug)}`;

/** get_dashboard's `share_links`: how many links open the dashboard now, and where they are managed. */
export const shareLinksJson = (settings: Pick<Settings, 'appUrl'>, subdomain: string, slug: string, active: number) => ({
  active,
  manage_url: sharePageUrl(settings, subdomain, slug),
});

/** The sentence get_dashboard adds when links are active; none otherwise, so most answers read as before. */
export function shareLinksLines(links: ReturnType<typeof shareLinksJson>): string[] {
  if (links.active === 0) return [];
  const count = links.active === 1 ? '1 share link is' : `${links.active} share links are`;
  return [`${count} active (anyone holding one can view this dashboard); share links are managed in the web app at ${links.manage_url}`];
}
