import Router from '@koa/router';
import type { Container } from 'inversify';
import type Koa from 'koa';
import { Settings } from '../../../application/ports/settings.js';
import { sessionCookieName, WebSessions } from '../../../application/ports/web-sessions.js';
import { safeReturnPath, ViewerAccess } from '../../../application/hosting/viewer-access.js';
import { badViewerLinkPage, SERVICE_PAGE_CSP } from '../dashboards/pages.js';
import { AUTH_PATH, readCookie, VIEWER_SIGN_IN_PATH } from '../dashboards/viewer-cookies.js';
import { onRefusal } from './refusals.js';

export interface ViewerRoutesDeps {
  settings: Settings;
  sessions: WebSessions;
  viewers: ViewerAccess;
  /** The web app's sign-in page, coming back to `returnTo` (an app-relative path) afterwards. */
  signInUrl?: (returnTo: string) => string;
}

/**
 * The web-app half of the private-dashboard sign-in: `GET /viewer/sign-in?subdomain&return&state`.
 * Without a web session it goes through the sign-in page and comes back; with one it issues a one-time
 * ticket and sends the browser to the dashboards host's `/_auth`, which trades it for a viewer cookie.
 */
export function createViewerRoutes(deps: ViewerRoutesDeps): Router {
  const { settings, sessions, viewers } = deps;
  const signInUrl = deps.signInUrl ?? ((returnTo: string) => `${settings.appUrl}/sign-in?return_to=${encodeURIComponent(returnTo)}`);
  const router = new Router();
  const sessionCookie = sessionCookieName(settings.appUrl);

  router.get(VIEWER_SIGN_IN_PATH, async (ctx: Koa.Context) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
    const cookie = readCookie(ctx.get('cookie'), sessionCookie);
    const session = cookie ? await sessions.resolve(cookie) : null;
    if (!session) {
      ctx.redirect(signInUrl(`${VIEWER_SIGN_IN_PATH}?${ctx.querystring}`));
      return;
    }
    const subdomain = ctx.query.subdomain;
    onRefusal(
      ctx,
      (ctx, error, status) => {
        ctx.status = status;
        ctx.set('Content-Security-Policy', SERVICE_PAGE_CSP);
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = badViewerLinkPage(settings.serviceDisplayName, error.message);
      },
      'link',
    );
    const ticket = await viewers.issueTicket(session.userId, subdomain, ctx.query.state);
    const query = new URLSearchParams({ ticket, return: safeReturnPath(ctx.query.return) });
    ctx.redirect(`${settings.dashboardScheme}://${subdomain as string}.${settings.dashboardDomain}${AUTH_PATH}?${query.toString()}`);
  });

  return router;
}

/** The routes with their dependencies taken from the composition root (WebSessions comes from sign-in). */
export function viewerRoutesFrom(container: Container, signInUrl?: (returnTo: string) => string): Router {
  return createViewerRoutes({
    settings: container.get<Settings>(Settings),
    sessions: container.get<WebSessions>(WebSessions),
    viewers: container.get(ViewerAccess),
    signInUrl,
  });
}
