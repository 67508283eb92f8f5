import Router from '@koa/router';
import type { Container } from 'inversify';
import type Koa from 'koa';
import { Consent } from '../../../application/auth/consent.js';
import { Grants } from '../../../application/auth/grants.js';
import { OidcSignIn } from '../../../application/auth/oidc-sign-in.js';
import { SignOut } from '../../../application/auth/sign-out.js';
import { WebAccounts } from '../../../application/auth/web-accounts.js';
import { WebSessionService } from '../../../application/auth/web-session-service.js';
import { isViewerSubdomain, safeReturnPath } from '../../../application/hosting/viewer-access.js';
import { SecretTokens } from '../../../application/ports/secret-tokens.js';
import type { Settings } from '../../../application/ports/settings.js';
import { isDomainError, type DomainError } from '../../../domain/errors.js';
import { BodyTooLarge } from '../../http/request-body.js';
import { VIEWER_SIGN_IN_PATH } from '../dashboards/viewer-cookies.js';
import { field, readForm, type FormFields } from './forms.js';
import { addUpstreamSignInRoutes } from './oidc-routes.js';
import { accountPage, consentPage, messagePage, signInPage, signUpPage } from './pages.js';
import { answerRefusal, onRefusal } from './refusals.js';
import { seeOther, sendPage, WebSecurity } from './web-security.js';

export interface AppSurfaceOptions {
  /** Further app routes, e.g. the private-dashboard viewer sign-in (createViewerRoutes). */
  extra?: Koa.Middleware;
  logger?: { error(details: object, message: string): void };
}

/**
 * The web app host (`{app_url}`): sign-up, sign-in, sign-out, the consent screen at `/consent`, and
 * the account page. Plain HTML forms, no script; every POST is CSRF-checked. Routes name the page a
 * refusal shows (`onRefusal`) and let DomainErrors propagate to the one catch at the end, which takes the
 * status from shells/koa/http-status.ts.
 */
export function createAppSurface(container: Container, settings: Settings, options: AppSurfaceOptions = {}): Koa.Middleware {
  const app = appPages(container, settings);
  const router = new Router();
  signInRoutes(router, app);
  accountRoutes(router, app);
  consentRoutes(router, app);
  return appHost(router.routes() as Koa.Middleware, app, options);
}

type AppPages = ReturnType<typeof appPages>;

/** The dashboards host a viewer sign-in is for (its return path is never read), or null for any other sign-in. */
function privateHostOf(returnTo: string, dashboardsAt: (subdomain: string) => string): string | null {
  if (!returnTo.startsWith(`${VIEWER_SIGN_IN_PATH}?`)) return null;
  const subdomain = new URLSearchParams(returnTo.slice(VIEWER_SIGN_IN_PATH.length + 1)).get('subdomain');
  return isViewerSubdomain(subdomain) ? dashboardsAt(subdomain) : null;
}

/** What every app route shares: the use cases, the page chrome and the CSRF-checked form reader. */
function appPages(container: Container, settings: Settings) {
  const accounts = container.get(WebAccounts);
  const sessions = container.get(WebSessionService);
  const consent = container.get(Consent);
  const signOut = container.get(SignOut);
  const grants = container.get(Grants);
  const upstream = container.get(OidcSignIn);
  const security = new WebSecurity(settings, container.get<SecretTokens>(SecretTokens));
  const displayName = settings.serviceDisplayName;
  const dashboardsAt = (name: string) => `${name}.${settings.dashboardDomain}`;
  // A sign-in that returns to the viewer round trip ends on a dashboards host.
  const dashboardOrigins = [`${settings.dashboardScheme}://*.${settings.dashboardDomain}`];

  const page = (ctx: Koa.Context) => ({ displayName, csrf: security.csrfToken(ctx), upstreamSignIn: upstream.providerName });
  const signInFor = (ctx: Koa.Context, input: { returnTo: string; email?: string; error?: string }) =>
    signInPage(page(ctx), { ...input, signUpOpen: accounts.signUpOpen, privateHost: privateHostOf(input.returnTo, dashboardsAt) });
  const currentUser = (ctx: Koa.Context) => security.userId(ctx, sessions);
  const returnTarget = (value: string, fallback = '/account') => (value ? safeReturnPath(value) : fallback);

  /** Reads a POSTed form and checks CSRF; null when refused (the response is already set). */
  const postedForm = async (ctx: Koa.Context): Promise<FormFields | null> => {
    const fields = await readForm(ctx);
    if (security.checkPost(ctx, field(fields, 'csrf'))) return fields;
    sendPage(ctx, 403, messagePage(displayName, {
      title: 'This form has expired',
      message: 'The page was open too long or came from somewhere else. Go back, reload the page and try again.',
      link: { href: '/', text: 'Start again' },
    }));
    return null;
  };

  return { settings, accounts, sessions, consent, signOut, grants, upstream, security, displayName, dashboardsAt, dashboardOrigins, page, signInFor, currentUser, returnTarget, postedForm };
}

/** The home redirect, sign-in (with the upstream provider's, when configured) and sign-up. */
function signInRoutes(router: Router, { accounts, upstream, security, dashboardOrigins, page, signInFor, currentUser, returnTarget, postedForm }: AppPages): void {
  router.get('/', async (ctx) => seeOther(ctx, (await currentUser(ctx)) ? '/account' : '/sign-in'));

  router.get('/sign-in', async (ctx) => {
    const returnTo = returnTarget(String(ctx.query.return_to ?? ''));
    if (await currentUser(ctx)) return seeOther(ctx, returnTo);
    sendPage(ctx, 200, signInFor(ctx, { returnTo }), dashboardOrigins);
  });

  router.post('/sign-in', async (ctx) => {
    const form = await postedForm(ctx);
    if (!form) return;
    const returnTo = returnTarget(field(form, 'return_to'));
    onRefusal(ctx, (ctx, error, status) =>
      sendPage(ctx, status, signInFor(ctx, { returnTo, email: field(form, 'email'), error: error.message }), dashboardOrigins),
    );
    const { session } = await accounts.signIn({ email: field(form, 'email'), password: field(form, 'password'), clientIp: ctx.ip });
    security.setSession(ctx, session.token, session.expiresAt);
    seeOther(ctx, returnTo);
  });

  if (upstream.providerName !== null) {
    addUpstreamSignInRoutes(router, {
      signIn: upstream,
      security,
      returnTarget,
      currentUser,
      showSignIn: (ctx, status, input) =>
        sendPage(ctx, status, signInFor(ctx, input), dashboardOrigins),
    });
  }

  router.get('/sign-up', async (ctx) => {
    const returnTo = returnTarget(String(ctx.query.return_to ?? ''));
    sendPage(ctx, accounts.signUpOpen ? 200 : 403, signUpPage(page(ctx), { returnTo, open: accounts.signUpOpen }), dashboardOrigins);
  });

  router.post('/sign-up', async (ctx) => {
    const form = await postedForm(ctx);
    if (!form) return;
    const returnTo = returnTarget(field(form, 'return_to'));
    onRefusal(ctx, (ctx, error, status) => {
      const body = signUpPage(page(ctx), { returnTo, handle: field(form, 'handle'), email: field(form, 'email'), error: error.message, open: accounts.signUpOpen });
      sendPage(ctx, status, body, dashboardOrigins);
    });
    const { session } = await accounts.signUp({
      handle: field(form, 'handle').trim(),
      email: field(form, 'email'),
      password: field(form, 'password'),
      clientIp: ctx.ip,
    });
    security.setSession(ctx, session.token, session.expiresAt);
    seeOther(ctx, returnTo);
  });
}

/** Sign-out, the account page and revoking a grant. */
function accountRoutes(router: Router, { settings, accounts, signOut, grants, security, displayName, dashboardsAt, page, currentUser, returnTarget, postedForm }: AppPages): void {
  router.post('/sign-out', async (ctx) => {
    const form = await postedForm(ctx);
    if (!form) return;
    const token = security.sessionToken(ctx);
    if (token) await signOut.execute(token);
    security.clearSession(ctx);
    const back = field(form, 'return_to');
    seeOther(ctx, back ? returnTarget(back) : '/sign-in');
  });

  router.get('/account', async (ctx) => {
    const userId = await currentUser(ctx);
    const overview = userId ? await accounts.overview(userId) : null;
    if (!userId || !overview) return seeOther(ctx, '/sign-in?return_to=%2Faccount');
    const notice = ctx.query.revoked === '1' ? 'Access revoked.' : undefined;
    sendPage(ctx, 200, accountPage(page(ctx), { overview, grants: await grants.listForUser(userId), dashboardsAt, scheme: settings.dashboardScheme, notice }));
  });

  router.post('/account/grants/revoke', async (ctx) => {
    const form = await postedForm(ctx);
    if (!form) return;
    const userId = await currentUser(ctx);
    if (!userId) return seeOther(ctx, '/sign-in?return_to=%2Faccount');
    onRefusal(ctx, (ctx, error, status) =>
      sendPage(ctx, status, messagePage(displayName, { title: 'Nothing to revoke', message: error.message, link: { href: '/account', text: 'Back to your account' } })),
    );
    await grants.revokeOwn(userId, field(form, 'grant'));
    seeOther(ctx, '/account?revoked=1');
  });
}

/** The consent screen of the OAuth authorization flow. */
function consentRoutes(router: Router, { accounts, consent, displayName, dashboardsAt, page, currentUser, postedForm }: AppPages): void {
  const expiredRequest = (ctx: Koa.Context, error: DomainError, status: number) =>
    sendPage(ctx, status, messagePage(displayName, { title: 'Authorization request not found', message: error.message }));

  const showConsent = async (ctx: Koa.Context, requestHandle: string, status = 200, error?: string) => {
    const view = await consent.describe(requestHandle, await currentUser(ctx));
    const body = consentPage(page(ctx), { requestHandle, view, error, signUpOpen: accounts.signUpOpen, dashboardsAt });
    sendPage(ctx, status, body, [new URL(view.redirectUri).origin]);
  };

  router.get('/consent', async (ctx) => {
    onRefusal(ctx, expiredRequest);
    await showConsent(ctx, String(ctx.query.request ?? ''));
  });

  router.post('/consent', async (ctx) => {
    const form = await postedForm(ctx);
    if (!form) return;
    const requestHandle = field(form, 'request');
    // A refused choice (a workspace the user may not pick) shows the consent screen again with the
    // reason; when the request itself is gone, that screen cannot be drawn and the request's page says so.
    onRefusal(ctx, (ctx, error, status) =>
      error.code === 'forbidden'
        ? showConsent(ctx, requestHandle, status, error.message).catch(() => expiredRequest(ctx, error, status)) // the request is gone: its expiry page is the answer
        : expiredRequest(ctx, error, status),
    );
    if (field(form, 'decision') === 'allow') {
      const userId = await currentUser(ctx);
      if (!userId) return await showConsent(ctx, requestHandle, 401, 'Sign in to allow access.');
      const { location } = await consent.approve({ requestHandle, userId, target: field(form, 'target') });
      return seeOther(ctx, location);
    }
    const { location } = await consent.deny({ requestHandle });
    seeOther(ctx, location);
  });
}

/** The app host's one catch: refusals draw their page, anything else is logged and answers 500. */
function appHost(routes: Koa.Middleware, { displayName, security }: AppPages, options: AppSurfaceOptions): Koa.Middleware {
  const fallback = options.extra;
  const notFound = (ctx: Koa.Context) =>
    sendPage(ctx, 404, messagePage(displayName, { title: 'Page not found', message: 'There is nothing at this address.', link: { href: '/', text: 'Go to your account' } }));
  const refused = (ctx: Koa.Context, error: DomainError, status: number) =>
    sendPage(ctx, status, messagePage(displayName, { title: 'This cannot be done', message: error.message, link: { href: '/', text: 'Go to your account' } }));
  const failed = (ctx: Koa.Context, error: unknown) => {
    options.logger?.error({ err: error, path: ctx.path }, 'web app request failed');
    sendPage(ctx, 500, messagePage(displayName, { title: 'Something went wrong', message: `${displayName} could not complete this request. Please try again in a moment.` }));
  };

  // The last step never calls next: the app host owns every path it is given.
  return async (ctx) => {
    security.clearPlanted(ctx);
    try {
      await routes(ctx, async () => {
        if (fallback) await fallback(ctx, async () => notFound(ctx));
        else notFound(ctx);
      });
    } catch (error) {
      if (error instanceof BodyTooLarge) {
        sendPage(ctx, 413, messagePage(displayName, { title: 'Too much data', message: 'The form sent more data than this page accepts.' }));
        return;
      }
      if (!isDomainError(error)) return failed(ctx, error);
      await answerRefusal(ctx, error, refused).catch((pageError: unknown) => failed(ctx, pageError));
    }
  };
}
