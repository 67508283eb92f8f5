import type { ListedDashboard } from '../../../application/hosting/hosting-catalog.js';
import type { Moved } from '../../../application/hosting/serve-dashboard.js';
import { canonicalUrl, type UrlSettings } from '../../../domain/urls.js';

/*
 * The dashboards host's answers made from ServeDashboard's outcomes: where a redirect leads and what the
 * public listing links to. The status of each redirect is the surface's (`REDIRECT_STATUS` there).
 */

/** The Location of a redirect; the request's query string (raw, without `?`) is kept. */
export function movedLocation(urls: UrlSettings, moved: Moved, query: string): string {
  const location =
    moved.kind === 'relative_link'
      ? `/${moved.slug}/${moved.filename}`
      : canonicalUrl(urls, moved.subdomain, moved.slug, moved.filename || undefined);
  // Only the alias and relative-link redirects keep the query; the first-file one never has.
  return moved.kind === 'first_file' || !query ? location : `${location}?${query}`;
}

/** The listing's rows, each with its canonical URL. */
export function listingRows(urls: UrlSettings, subdomain: string, dashboards: readonly ListedDashboard[]) {
  return dashboards.map((d) => ({ slug: d.slug, name: d.name, url: canonicalUrl(urls, subdomain, d.slug), updatedAt: d.updatedAt }));
}
