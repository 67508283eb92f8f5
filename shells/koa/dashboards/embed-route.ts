import type Koa from 'koa';
import type { EmbedAccess } from '../../../application/hosting/embed-access.js';
import type { ViewTally } from '../../../application/hosting/view-tally.js';
import { embedFrameAncestors, EMBED_PATH_PREFIX } from '../../../domain/embeds.js';
import { notFoundPage, SERVICE_PAGE_CSP } from './pages.js';

/**
 * What every other answer of the dashboards host allows as framers: its own origin and the web app (whose
 * dashboard page previews public dashboards), no other site (docs/decisions/0172-dashboards-host-framing.md).
 */
export function publicFramePolicy(appUrl: string): string {
  return `frame-ancestors 'self' ${new URL(appUrl).origin}`;
}

/**
 * `/_embed/<slug>?exp=…&sig=…`: the dashboard's page for framing by the origins its owner listed, or the
 * host's plain 404. Never stored by a cache (the signature is the capability) and never sent on as a
 * Referer; a view counts as the page's own. No X-Frame-Options: it cannot name origins, and a browser
 * that applies it would refuse the listed ones.
 */
export async function serveEmbed(ctx: Koa.Context, deps: { embeds: EmbedAccess; views: ViewTally; displayName: string }, subdomain: string): Promise<void> {
  const { embeds, views } = deps;
  const outcome = await embeds.open(subdomain, ctx.path.slice(EMBED_PATH_PREFIX.length), ctx.querystring);
  ctx.set('Cache-Control', 'private, no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  if (outcome.kind === 'not_found') {
    ctx.status = 404;
    ctx.set('Content-Type', 'text/html; charset=utf-8');
    ctx.set('Content-Security-Policy', SERVICE_PAGE_CSP);
    ctx.set('X-Frame-Options', 'DENY');
    ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
    ctx.body = notFoundPage(deps.displayName);
    return;
  }
  if (ctx.method === 'GET') views.record(outcome.dashboardId);
  ctx.status = 200;
  ctx.set('Content-Type', outcome.contentType);
  ctx.set('Content-Security-Policy', `frame-ancestors ${embedFrameAncestors(outcome.origins)}`);
  ctx.body = outcome.body;
}
