import type Koa from 'koa';
import type { Settings } from '../../application/ports/settings.js';

export type Surface = 'api' | 'app' | 'dashboards';

const hostOf = (url: string) => new URL(url).host.toLowerCase();

/** Settings never change while the process runs: the hosts are parsed once per settings object, not per request. */
const parsedHosts = new WeakMap<Settings, { app: string; api: string; dashboardSuffix: string }>();
function hostsOf(settings: Settings) {
  let hosts = parsedHosts.get(settings);
  if (!hosts) {
    hosts = { app: hostOf(settings.appUrl), api: hostOf(settings.baseUrl), dashboardSuffix: `.${settings.dashboardDomain.toLowerCase()}` };
    parsedHosts.set(settings, hosts);
  }
  return hosts;
}

/**
 * Which surface a request's Host header addresses (DESIGN §1). A dashboards-host request also carries
 * the subdomain (a handle or workspace slug). Unknown hosts get the API surface, whose routes are all
 * absolute, so a bare IP still answers /healthz.
 */
export function classifyHost(settings: Settings, hostHeader: string | undefined): { surface: Surface; subdomain?: string } {
  const host = (hostHeader ?? '').toLowerCase();
  const hosts = hostsOf(settings);
  if (host === hosts.app) return { surface: 'app' };
  if (host === hosts.api) return { surface: 'api' };
  const suffix = hosts.dashboardSuffix;
  if (host.endsWith(suffix)) {
    const subdomain = host.slice(0, -suffix.length);
    if (/^[a-z0-9-]+$/.test(subdomain)) return { surface: 'dashboards', subdomain };
  }
  return { surface: 'api' };
}

export type SurfaceHandlers = Record<Surface, Koa.Middleware>;

export function hostRouter(settings: Settings, handlers: SurfaceHandlers): Koa.Middleware {
  return async (ctx, next) => {
    const { surface, subdomain } = classifyHost(settings, ctx.get('host'));
    ctx.state.surface = surface;
    if (subdomain) ctx.state.subdomain = subdomain;
    await handlers[surface](ctx, next);
  };
}
