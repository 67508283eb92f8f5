export interface UrlSettings {
  dashboardScheme: string;
  dashboardDomain: string;
}

/** `https://<handle or workspace-slug>.{dashboard_domain}/<slug>`: the one URL form every message uses. */
export function canonicalUrl(settings: UrlSettings, subdomain: string, slug: string, filename?: string): string {
  const base = `${settings.dashboardScheme}://${subdomain}.${settings.dashboardDomain}/${slug}`;
  return filename && filename !== 'index.html' ? `${base}/${filename}` : base;
}
