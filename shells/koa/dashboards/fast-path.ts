import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Container } from 'inversify';
import { Settings } from '../../../application/ports/settings.js';
import { ServeDashboard } from '../../../application/hosting/serve-dashboard.js';
import { hasParamForm } from '../../../application/hosting/page-variants.js';
import { ViewTally } from '../../../application/hosting/view-tally.js';
import { matchesEtag, PRIVATE_CACHE, PRIVATE_FRAME_POLICY, PUBLIC_CACHE, REFERRER_POLICY } from './dashboards-surface.js';
import { cookieNames, readCookie, shareCookieName, type CookieNames } from './viewer-cookies.js';
import { publicFramePolicy } from './embed-route.js';
import type { HostClass } from '../host-router.js';

/**
 * Answers the request and returns true, or returns false having touched nothing; `host` is the Host header
 * as `hostClassifier` reads it, `head` the headers the answer starts with (the request observer's).
 */
export type FastPath = (req: IncomingMessage, res: ServerResponse, host: HostClass, head?: readonly string[]) => boolean;

/** What a file let in by a share link adds: it is private to this origin, like a private dashboard's. */
const PRIVATE_HEADERS = ['Cross-Origin-Resource-Policy', 'same-origin', 'Content-Security-Policy', PRIVATE_FRAME_POLICY, 'X-Frame-Options', 'SAMEORIGIN'];

/**
 * The dashboards host's hot path in front of Koa: a GET or HEAD of a public file, or of one a remembered
 * share session grants, whose site, dashboard and bytes are already cached is answered straight from
 * node:http, with exactly the headers the Koa surface sends; everything else (misses, private, aliases,
 * listings, 404s, `/_auth`, `/_share`) returns false and goes through Koa. Koa's per-request context costs about half the throughput on a 50 KB page.
 * The server calls it first, with the Host classification the request observer made: `if (!fastPath(req, res, host)) koaCallback(req, res)`.
 */
export function createDashboardsFastPath(deps: { serve: ServeDashboard; views: ViewTally; cookies: CookieNames; framePolicy: string }): FastPath {
  const { serve, views, cookies, framePolicy } = deps;

  return (req, res, host, head = []) => {
    const method = req.method;
    if (method !== 'GET' && method !== 'HEAD') return false;
    const { subdomain } = host;
    if (subdomain === undefined) return false;
    const url = req.url ?? '/';
    const query = url.indexOf('?');
    // A page pinned to a theme is a variant made per request, on the Koa path.
    if (query >= 0 && url.includes('theme=', query)) return false;
    const cookie = req.headers.cookie;
    // A share cookie may let in a private dashboard or pin another version of this very page.
    const shareCookie = cookie?.includes('dashpub_share_') ? (slug: string) => readCookie(cookie, shareCookieName(cookies, slug)) : undefined;
    const file = serve.peek(subdomain, query < 0 ? url : url.slice(0, query), shareCookie);
    if (!file) return false;
    // A page with a parameter form draws the URL's values, on the Koa path.
    if (query >= 0 && query < url.length - 1 && file.page && hasParamForm(file.body)) return false;
    if (file.page && method === 'GET') views.record(file.dashboardId, file.shareLinkId);
    const shared = file.visibility !== 'public';
    const common = ['ETag', file.etag, 'Cache-Control', shared ? PRIVATE_CACHE : PUBLIC_CACHE, 'X-Content-Type-Options', 'nosniff', 'Referrer-Policy', REFERRER_POLICY];
    common.push(...(shared ? PRIVATE_HEADERS : ['Content-Security-Policy', framePolicy]));
    const inm = req.headers['if-none-match'];
    if (inm !== undefined && matchesEtag(inm, file.etag)) {
      res.writeHead(304, [...head, ...common]);
      res.end();
      return true;
    }
    res.writeHead(200, [...head, 'Content-Type', file.contentType, 'Content-Length', String(file.body.byteLength), ...common]);
    if (method === 'HEAD') res.end();
    else res.end(file.body);
    return true;
  };
}

export function dashboardsFastPathFrom(container: Container): FastPath {
  return createDashboardsFastPath({
    serve: container.get(ServeDashboard),
    views: container.get(ViewTally),
    cookies: cookieNames(container.get<Settings>(Settings).dashboardScheme),
    framePolicy: publicFramePolicy(container.get<Settings>(Settings).appUrl),
  });
}
