import type { Settings } from '../application/ports/settings.js';

/** A hostname that only this machine reaches: `localhost`, `*.localhost`, 127.0.0.0/8, `::1`. */
export function isLoopbackHost(hostname: string): boolean {
  const host = hostname.toLowerCase().replace(/^\[|\]$/g, '');
  return host === 'localhost' || host.endsWith('.localhost') || /^127(\.\d{1,3}){3}$/.test(host) || host === '::1';
}

/**
 * What a deployment reached from other machines over plain http exposes, or null (https everywhere, or
 * loopback only). Said once at start-up, since nothing about it can be refused later.
 */
export function plainHttpExposure(settings: Pick<Settings, 'baseUrl' | 'appUrl' | 'dashboardScheme' | 'dashboardDomain'>): string | null {
  const surfaces = [
    { name: 'BASE_URL', url: new URL(settings.baseUrl) },
    { name: 'APP_URL', url: new URL(settings.appUrl) },
    { name: 'DASHBOARD_DOMAIN', url: new URL(`${settings.dashboardScheme}://x.${settings.dashboardDomain}`) },
  ];
  const exposed = surfaces.filter((s) => s.url.protocol === 'http:' && !isLoopbackHost(s.url.hostname)).map((s) => s.name);
  if (exposed.length === 0) return null;
  return (
    `served over plain http on a non-loopback address (${exposed.join(', ')}): session cookies, viewer cookies, ` +
    'access tokens and dashboard contents cross the network unencrypted, and cookies cannot use the __Host- prefix, ' +
    "so any dashboard page on a sibling subdomain can plant cookies for the web app and other accounts' dashboards; " +
    'serve every surface over https (DASHBOARD_SCHEME=https) behind a TLS proxy'
  );
}
