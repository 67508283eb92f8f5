export const DashboardAddresses = Symbol.for('DashboardAddresses');
/**
 * Where a dashboard is reached, as the shell that hosts it chooses: a rendered page links its own files
 * from its canonical URL, and the application never makes a URL itself.
 */
export interface DashboardAddresses {
  /** The canonical URL of the dashboard `slug` on `subdomain` (a handle or a workspace slug). */
  pageUrl(subdomain: string, slug: string): string;
}
