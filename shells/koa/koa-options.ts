import type { Settings } from '../../application/ports/settings.js';

/**
 * How Koa finds the client's address (`ctx.ip`, which the per-address limits key on). Behind
 * TRUST_PROXY hops it reads X-Forwarded-For, and only the entries those proxies appended (the
 * rightmost ones), so a client cannot pick its own address by sending the header itself.
 */
export function koaOptions(settings: Pick<Settings, 'trustProxyHops'>): { proxy: boolean; maxIpsCount?: number } {
  return settings.trustProxyHops > 0 ? { proxy: true, maxIpsCount: settings.trustProxyHops } : { proxy: false };
}
