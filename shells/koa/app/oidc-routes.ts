import type Router from '@koa/router';
import type Koa from 'koa';
import type { OidcSignIn } from '../../../application/auth/oidc-sign-in.js';
import { UPSTREAM_CALLBACK_PATH, UPSTREAM_START_PATH } from '../../../domain/upstream-sign-in.js';
import { onRefusal } from './refusals.js';
import { seeOther, setPageHeaders, type WebSecurity } from './web-security.js';

export interface UpstreamSignInDeps {
  signIn: OidcSignIn;
  security: WebSecurity;
  /** The `return_to` a request names, already limited to the app's own paths. */
  returnTarget: (value: string) => string;
  /** The web session's user, if the browser is signed in already. */
  currentUser: (ctx: Koa.Context) => Promise<string | null>;
  /** Answers with the sign-in page showing `error`, keeping `returnTo` for the next try. */
  showSignIn: (ctx: Koa.Context, status: number, input: { returnTo: string; error: string }) => void;
}

/**
 * `GET /sign-in/oidc?return_to=` starts a sign-in at the upstream provider; the provider sends the
 * browser back to `GET /sign-in/oidc/callback`. Both are plain links and redirects (no script, no
 * form). Mounted only when a provider is configured, so otherwise both paths are the app's 404. A failed
 * upstream sign-in is a `link` refusal (400, or 503 when the provider could not be reached), shown on the
 * sign-in page.
 */
export function addUpstreamSignInRoutes(router: Router, deps: UpstreamSignInDeps): void {
  const { signIn, security } = deps;

  router.get(UPSTREAM_START_PATH, async (ctx) => {
    const returnTo = deps.returnTarget(String(ctx.query.return_to ?? ''));
    onRefusal(ctx, (ctx, error, status) => deps.showSignIn(ctx, status, { returnTo, error: error.message }), 'link');
    const started = await signIn.start(returnTo);
    security.setUpstreamAttempt(ctx, started.attempt, started.maxAgeSeconds);
    setPageHeaders(ctx);
    ctx.status = 302;
    ctx.set('Location', started.authorizationUrl);
    ctx.body = '';
  });

  router.get(UPSTREAM_CALLBACK_PATH, async (ctx) => {
    const attempt = security.upstreamAttempt(ctx);
    security.clearUpstreamAttempt(ctx);
    onRefusal(ctx, (ctx, error, status) => deps.showSignIn(ctx, status, { returnTo: signIn.returnTargetOf(attempt), error: error.message }), 'link');
    const { session, returnTo } = await signIn.finish({ callbackQuery: ctx.querystring, attempt, signedInUserId: await deps.currentUser(ctx) });
    security.setSession(ctx, session.token, session.expiresAt);
    seeOther(ctx, returnTo);
  });
}
