import type { DashboardAddresses } from '../../../application/ports/dashboard-addresses.js';
import { canonicalUrl, type UrlSettings } from '../../../domain/urls.js';

/** The canonical URLs the rendered pages link from, the same ones every answer shows. */
export function dashboardAddresses(urls: UrlSettings): DashboardAddresses {
  return { pageUrl: (subdomain, slug) => canonicalUrl(urls, subdomain, slug) };
}
