import type Koa from 'koa';
import type { Settings } from '../../application/ports/settings.js';

export type Surface = 'api' | 'app' | 'dashboards';

const hostOf = (url: string) => new URL(url).host.toLowerCase();

export type HostClass = { surface: Surface; subdomain?: string };
const API: HostClass = { surface: 'api' };
const APP: HostClass = { surface: 'app' };
const SUBDOMAIN = /^[a-z0-9-]+$/;

/**
 * Which surface a request's Host header addresses: the web app's host, the API's, or a subdomain of the
 * dashboards domain, which also names the subdomain (a handle or workspace slug). Unknown hosts get the
 * API surface, whose routes are all absolute, so a bare IP still answers /healthz. The hosts are worked
 * out once; the Koa host router and the request observer (which hands its reading to the fast paths) classify with it.
 */
export function hostClassifier(settings: Pick<Settings, 'appUrl' | 'baseUrl' | 'dashboardDomain'>): (hostHeader: string | undefined) => HostClass {
  const appHost = hostOf(settings.appUrl);
  const apiHost = hostOf(settings.baseUrl);
  const suffix = `.${settings.dashboardDomain.toLowerCase()}`;
  const classify = (hostHeader: string | undefined): HostClass => {
    const host = (hostHeader ?? '').toLowerCase();
    if (host === appHost) return APP;
    if (host === apiHost) return API;
    if (host.endsWith(suffix)) {
      const subdomain = host.slice(0, -suffix.length);
      if (SUBDOMAIN.test(subdomain)) return { surface: 'dashboards', subdomain };
    }
    return API;
  };
  // Keep-alive connections send the same Host over and over: the last answer is kept (callers only read it).
  let lastHeader: string | undefined;
  let lastClass: HostClass = API;
  return (hostHeader) => {
    if (hostHeader !== lastHeader || hostHeader === undefined) {
      lastClass = classify(hostHeader);
      lastHeader = hostHeader;
    }
    return lastClass;
  };
}

export type SurfaceHandlers = Record<Surface, Koa.Middleware>;

export function hostRouter(settings: Settings, handlers: SurfaceHandlers): Koa.Middleware {
  const classify = hostClassifier(settings);
  return async (ctx, next) => {
    const { surface, subdomain } = classify(ctx.get('host'));
    ctx.state.surface = surface;
    if (subdomain) ctx.state.subdomain = subdomain;
    await handlers[surface](ctx, next);
  };
}
