import type { Container } from 'inversify';
import type Koa from 'koa';
import { Settings } from '../../../application/ports/settings.js';
import { ServeDashboard, type HostingOutcome, type Moved } from '../../../application/hosting/serve-dashboard.js';
import { safeReturnPath, ViewerAccess } from '../../../application/hosting/viewer-access.js';
import { ViewTally } from '../../../application/hosting/view-tally.js';
import { ShareAccess } from '../../../application/sharing/share-access.js';
import { ServeDashboardImage, type ImageOutcome } from '../../../application/hosting/serve-image.js';
import { parseTheme } from '../../../domain/page-theme.js';
import { EmbedAccess } from '../../../application/hosting/embed-access.js';
import { EMBED_PATH_PREFIX } from '../../../domain/embeds.js';
import { publicFramePolicy, serveEmbed } from './embed-route.js';
import { listingRows, movedLocation } from '../../presenters/hosting/hosting-presenters.js';
import { errorPage, listingPage, notFoundPage, SERVICE_PAGE_CSP, signInFailedPage } from './pages.js';
import { SHARE_PREFIX, shareRoute } from './share-routes.js';
import { AUTH_PATH, clearPlantedCookies, cookieNames, readCookie, serializeCookie, shareCookieName, VIEWER_SIGN_IN_PATH } from './viewer-cookies.js';

export interface DashboardsSurfaceDeps {
  settings: Settings;
  serve: ServeDashboard;
  viewers: ViewerAccess;
  views: ViewTally;
  shares: ShareAccess;
  images: ServeDashboardImage;
  embeds: EmbedAccess;
  /** Where unexpected failures go; the visitor only ever sees a plain 503 page. */
  onError?: (error: unknown) => void;
}

export const PUBLIC_CACHE = 'public, max-age=0, must-revalidate';
export const PRIVATE_CACHE = 'private, no-store';
/** Same-origin requests keep the full Referer (the relative-link fallback reads it); others get the origin only. */
export const REFERRER_POLICY = 'strict-origin-when-cross-origin';
const STATE_MAX_AGE_SECONDS = 600;
/** Private bytes load only on their own origin: no other tenant's page may embed them as script, style, image or frame. */
export const PRIVATE_FRAME_POLICY = "frame-ancestors 'self'";

/** An alias moved for good; the other two depend on the manifest or the Referer, so they may change. */
export const REDIRECT_STATUS: Readonly<Record<Moved['kind'], number>> = { moved: 301, first_file: 302, relative_link: 302 };

/** Marks an answer about a private dashboard (its files, its redirects, the way to its sign-in) as this origin's only. */
function setPrivateHeaders(ctx: Koa.Context): void {
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
  ctx.set('Content-Security-Policy', PRIVATE_FRAME_POLICY);
  ctx.set('X-Frame-Options', 'SAMEORIGIN');
}

/**
 * True for a browser's top-level navigation, the only request that may start the viewer sign-in: with
 * fetch metadata, mode `navigate` to a document (a frame is not one); without it, a GET that accepts HTML.
 * Anything else (a script, an image, a fetch from some page) gets the plain 404.
 */
export function isTopLevelNavigation(method: string, headers: { mode?: string; dest?: string; accept?: string }): boolean {
  if (headers.mode) return headers.mode === 'navigate' && (!headers.dest || headers.dest === 'document');
  return method === 'GET' && /\btext\/html\b/i.test(headers.accept ?? '');
}

/** RFC 9110 weak comparison, as If-None-Match requires. */
export function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  for (const candidate of header.split(',')) {
    const tag = candidate.trim();
    if ((tag.startsWith('W/') ? tag.slice(2) : tag) === etag) return true;
  }
  return false;
}

/**
 * The `<subdomain>.{dashboard_domain}` surface. The host router sets `ctx.state.subdomain`. User bytes
 * are served as published, with no sandbox CSP: dashboards must run their own scripts and fetch their
 * own files, and the only secret on this origin (the viewer cookie) is HttpOnly and host-only per account.
 */
/** What the surface's steps share: the settings, the use cases and the cookie names. */
interface Surface {
  settings: Settings;
  viewers: ViewerAccess;
  views: ViewTally;
  cookies: ReturnType<typeof cookieNames>;
}

/** A page of the service itself (listing, not found, errors): no script, no frame, this origin only. */
function servicePage(ctx: Koa.Context, status: number, html: string, cacheControl: string): void {
  ctx.status = status;
  ctx.set('Content-Type', 'text/html; charset=utf-8');
  ctx.set('Content-Security-Policy', SERVICE_PAGE_CSP);
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cache-Control', cacheControl);
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
  ctx.body = html;
}

function respondFile(ctx: Koa.Context, outcome: Extract<HostingOutcome, { kind: 'file' }>, views: ViewTally): void {
  ctx.set('ETag', outcome.etag);
  ctx.set('Cache-Control', outcome.visibility === 'public' ? PUBLIC_CACHE : PRIVATE_CACHE);
  if (outcome.visibility !== 'public') setPrivateHeaders(ctx);
  if (outcome.page && ctx.method === 'GET') views.record(outcome.dashboardId, outcome.shareLinkId);
  if (matchesEtag(ctx.get('if-none-match') || undefined, outcome.etag)) {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  ctx.set('Content-Type', outcome.contentType);
  ctx.body = outcome.body;
}

/** A private dashboard without a viewer session: the sign-in round trip, for a top-level navigation only. */
function respondSignIn(ctx: Koa.Context, surface: Surface, returnPath: string, subdomain: string): void {
  const navigation = isTopLevelNavigation(ctx.method, { mode: ctx.get('sec-fetch-mode'), dest: ctx.get('sec-fetch-dest'), accept: ctx.get('accept') });
  if (!navigation) {
    servicePage(ctx, 404, notFoundPage(surface.settings.serviceDisplayName), 'no-cache');
    return;
  }
  const state = surface.viewers.newState();
  const query = new URLSearchParams({ subdomain, return: returnPath, state });
  ctx.status = 302;
  ctx.append('Set-Cookie', serializeCookie(surface.cookies.state, state, STATE_MAX_AGE_SECONDS, surface.cookies.secure));
  ctx.set('Location', `${surface.settings.appUrl}${VIEWER_SIGN_IN_PATH}?${query.toString()}`);
  ctx.set('Cache-Control', PRIVATE_CACHE);
  setPrivateHeaders(ctx);
}

function respond(ctx: Koa.Context, surface: Surface, outcome: HostingOutcome, subdomain: string): void {
  const { settings } = surface;
  switch (outcome.kind) {
    case 'file':
      respondFile(ctx, outcome, surface.views);
      return;
    case 'moved':
    case 'first_file':
    case 'relative_link':
      ctx.status = REDIRECT_STATUS[outcome.kind];
      ctx.set('Location', movedLocation(settings, outcome, ctx.querystring));
      ctx.set('Cache-Control', outcome.visibility === 'public' ? 'public, max-age=60' : PRIVATE_CACHE);
      if (outcome.visibility !== 'public') setPrivateHeaders(ctx);
      return;
    case 'listing':
      servicePage(ctx, 200, listingPage(settings.serviceDisplayName, outcome.subdomain, listingRows(settings, outcome.subdomain, outcome.dashboards)), 'no-cache');
      return;
    case 'sign_in':
      respondSignIn(ctx, surface, outcome.returnPath, subdomain);
      return;
    case 'not_found':
      servicePage(ctx, 404, notFoundPage(settings.serviceDisplayName), 'no-cache');
      return;
  }
}

/** Where a dashboard's images live: a prefix no slug can take (slugs have no underscore). */
export const IMAGE_PREFIX = '/_image/';
const IMAGE_PATH = /^\/_image\/([a-z0-9-]{1,64})(?:\/([A-Za-z0-9_-]{1,64}))?\.png$/;

/** `/_image/<slug>.png`, `/_image/<slug>/<panel-id>.png`, `?theme=dark`: the page's access rules, the page's 404. */
async function respondImage(ctx: Koa.Context, surface: Surface, images: ServeDashboardImage, subdomain: string): Promise<void> {
  const match = IMAGE_PATH.exec(ctx.path);
  const outcome: ImageOutcome = match
    ? await images.execute({
        subdomain,
        slug: match[1]!,
        ...(match[2] === undefined ? {} : { panelId: match[2] }),
        theme: parseTheme(ctx.query.theme) ?? 'light',
        path: ctx.path,
        query: ctx.querystring,
        viewerToken: () => readCookie(ctx.get('cookie'), surface.cookies.viewer),
        shareCookie: (slug) => readCookie(ctx.get('cookie'), shareCookieName(surface.cookies, slug)),
        holds: (etag) => matchesEtag(ctx.get('if-none-match') || undefined, etag),
      })
    : { kind: 'not_found' };
  if (outcome.kind === 'sign_in') return respondSignIn(ctx, surface, outcome.returnPath, subdomain);
  if (outcome.kind === 'not_found') return servicePage(ctx, 404, notFoundPage(surface.settings.serviceDisplayName), 'no-cache');
  if (outcome.kind === 'moved') {
    ctx.status = REDIRECT_STATUS.moved;
    const panel = match![2] === undefined ? '' : `/${match![2]}`;
    ctx.set('Location', `${IMAGE_PREFIX}${outcome.slug}${panel}.png${ctx.querystring ? `?${ctx.querystring}` : ''}`);
    ctx.set('Cache-Control', outcome.visibility === 'public' ? 'public, max-age=60' : PRIVATE_CACHE);
    if (outcome.visibility !== 'public') setPrivateHeaders(ctx);
    return;
  }
  ctx.set('ETag', outcome.etag);
  ctx.set('Cache-Control', outcome.visibility === 'public' ? PUBLIC_CACHE : PRIVATE_CACHE);
  if (outcome.visibility !== 'public') setPrivateHeaders(ctx);
  if (outcome.kind === 'not_modified') {
    ctx.status = 304;
    return;
  }
  ctx.status = 200;
  ctx.set('Content-Type', 'image/png');
  ctx.body = outcome.body;
}

/** `/_auth`: the web app's ticket traded for this host's viewer session cookie. */
async function exchangeTicket(ctx: Koa.Context, surface: Surface, subdomain: string): Promise<void> {
  const { cookies } = surface;
  const returnPath = safeReturnPath(ctx.query.return);
  ctx.set('Referrer-Policy', 'no-referrer');
  const session = await surface.viewers.exchange(subdomain, ctx.query.ticket, readCookie(ctx.get('cookie'), cookies.state));
  if (!session) {
    servicePage(ctx, 400, signInFailedPage(surface.settings.serviceDisplayName, returnPath), PRIVATE_CACHE);
    return;
  }
  ctx.status = 302;
  ctx.append('Set-Cookie', [
    serializeCookie(cookies.viewer, session.token, session.maxAgeSeconds, cookies.secure),
    serializeCookie(cookies.state, '', 0, cookies.secure),
  ]);
  ctx.set('Location', returnPath);
  ctx.set('Cache-Control', PRIVATE_CACHE);
  setPrivateHeaders(ctx);
}

/** The path of a same-host Referer, for the relative-link fallback; null for another host or none. */
function refererPath(ctx: Koa.Context): string | null {
  const referer = ctx.get('referer');
  if (!referer) return null;
  try {
    const url = new URL(referer);
    return url.host.toLowerCase() === ctx.get('host').toLowerCase() ? url.pathname : null;
  } catch {
    return null;
  }
}

export function createDashboardsSurface(deps: DashboardsSurfaceDeps): Koa.Middleware {
  const { settings, serve, viewers, views, shares } = deps;
  const surface: Surface = { settings, viewers, views, cookies: cookieNames(settings.dashboardScheme) };
  const { cookies } = surface;
  const framePolicy = publicFramePolicy(settings.appUrl);
  return async (ctx) => {
    const subdomain = ctx.state.subdomain as string;
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', REFERRER_POLICY);
    ctx.set('Content-Security-Policy', framePolicy); // private answers, service pages and embeds set their own
    // A viewer or state cookie sent twice was planted by a sibling host: neither is read, and all copies go.
    clearPlantedCookies(ctx, [cookies.viewer, cookies.state], cookies.secure);
    const sharing = ctx.path === SHARE_PREFIX || ctx.path.startsWith(`${SHARE_PREFIX}/`);
    if (ctx.method !== 'GET' && ctx.method !== 'HEAD' && !(sharing && ctx.method === 'POST')) {
      ctx.status = 405;
      ctx.set('Allow', sharing ? 'GET, HEAD, POST' : 'GET, HEAD');
      return;
    }
    try {
      if (ctx.path.startsWith(EMBED_PATH_PREFIX)) return await serveEmbed(ctx, { embeds: deps.embeds, views, displayName: settings.serviceDisplayName }, subdomain);
      if (ctx.path === AUTH_PATH) {
        await exchangeTicket(ctx, surface, subdomain);
        return;
      }
      if (sharing) {
        await shareRoute(ctx, { shares, cookies, displayName: settings.serviceDisplayName }, subdomain);
        return;
      }
      if (ctx.path.startsWith(IMAGE_PREFIX)) {
        await respondImage(ctx, surface, deps.images, subdomain);
        return;
      }
      const outcome = await serve.execute({
        subdomain,
        path: ctx.path,
        query: ctx.querystring,
        viewerToken: () => readCookie(ctx.get('cookie'), cookies.viewer),
        refererPath: () => refererPath(ctx),
        shareCookie: (slug) => readCookie(ctx.get('cookie'), shareCookieName(cookies, slug)),
      });
      respond(ctx, surface, outcome, subdomain);
    } catch (error) {
      deps.onError?.(error);
      servicePage(ctx, 503, errorPage(settings.serviceDisplayName), 'no-store');
    }
  };
}

/** The surface with its use cases taken from the composition root. */
export function dashboardsSurfaceFrom(container: Container, onError?: (error: unknown) => void): Koa.Middleware {
  return createDashboardsSurface({
    settings: container.get<Settings>(Settings),
    serve: container.get(ServeDashboard),
    viewers: container.get(ViewerAccess),
    views: container.get(ViewTally),
    shares: container.get(ShareAccess),
    images: container.get(ServeDashboardImage),
    embeds: container.get(EmbedAccess),
    onError,
  });
}
