import type Koa from 'koa';
import type { SecretTokens } from '../../../application/ports/secret-tokens.js';
import type { Settings } from '../../../application/ports/settings.js';
import { sessionCookieName, type WebSessions } from '../../../application/ports/web-sessions.js';
import { clearPlantedCookies, readCookie, serializeCookie } from '../dashboards/viewer-cookies.js';
import { contentSecurityPolicy } from './html.js';

const CSRF_COOKIE_SECONDS = 7 * 24 * 60 * 60;
const UPSTREAM_ATTEMPT_COOKIE = 'dashpub_oidc_attempt';

/** Headers every web-app page carries: no framing (clickjacking), no caching, no referrer leaving the app. */
export function setPageHeaders(ctx: Koa.Context, formTargets: string[] = []): void {
  ctx.set('Content-Security-Policy', contentSecurityPolicy(formTargets));
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('X-Content-Type-Options', 'nosniff');
  // same-origin keeps the real Origin on the app's own POSTs and sends no Referer (with the request
  // handle in it) to a client's redirect URI.
  ctx.set('Referrer-Policy', 'same-origin');
  ctx.set('Cache-Control', 'no-store');
}

/** An HTML page answer with the page headers. */
export function sendPage(ctx: Koa.Context, status: number, body: string, formTargets: string[] = []): void {
  setPageHeaders(ctx, formTargets);
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.body = body;
}

/** 303 after a form POST (or a plain redirect from a page), with the page headers. */
export function seeOther(ctx: Koa.Context, location: string): void {
  setPageHeaders(ctx);
  ctx.status = 303;
  ctx.set('Location', location);
  ctx.body = '';
}

/**
 * Cookies and CSRF of the web app. Cookies are HttpOnly and SameSite=Lax, Secure under https. A form
 * carries a token derived from a random cookie (double submit): a page elsewhere can neither read the
 * cookie nor compute the token. POSTs whose Origin is another origin (a dashboard on a sibling
 * subdomain is same-site, so SameSite alone would let it through) are refused as well.
 */
export class WebSecurity {
  readonly secure: boolean;
  private readonly appOrigin: string;
  private readonly csrfCookie: string;
  private readonly sessionCookie: string;
  private readonly attemptCookie: string;

  constructor(
    settings: Settings,
    private readonly secrets: SecretTokens,
  ) {
    this.secure = new URL(settings.appUrl).protocol === 'https:';
    this.appOrigin = new URL(settings.appUrl).origin;
    this.csrfCookie = this.secure ? '__Host-dashpub_csrf' : 'dashpub_csrf';
    this.sessionCookie = sessionCookieName(settings.appUrl);
    this.attemptCookie = this.secure ? `__Host-${UPSTREAM_ATTEMPT_COOKIE}` : UPSTREAM_ATTEMPT_COOKIE;
  }

  /**
   * Expires every copy of a cookie of ours that arrived twice (one was planted: see readCookie, which then
   * reads neither). Runs first on every app request, so a later Set-Cookie of the same name wins.
   */
  clearPlanted(ctx: Koa.Context): void {
    clearPlantedCookies(ctx, [this.sessionCookie, this.csrfCookie, this.attemptCookie], this.secure);
  }

  sessionToken(ctx: Koa.Context): string | null {
    return readCookie(ctx.get('cookie'), this.sessionCookie);
  }

  /** The signed-in user of this request, or null. */
  async userId(ctx: Koa.Context, sessions: WebSessions): Promise<string | null> {
    const token = this.sessionToken(ctx);
    return token ? ((await sessions.resolve(token))?.userId ?? null) : null;
  }

  setSession(ctx: Koa.Context, token: string, expiresAt: Date): void {
    ctx.append('Set-Cookie', serializeCookie(this.sessionCookie, token, (expiresAt.getTime() - Date.now()) / 1000, this.secure));
  }

  clearSession(ctx: Koa.Context): void {
    ctx.append('Set-Cookie', serializeCookie(this.sessionCookie, '', 0, this.secure));
  }

  /**
   * The sealed upstream sign-in attempt (state, nonce, PKCE verifier, return target). SameSite=Lax is
   * what lets it come back on the provider's top-level redirect to the callback.
   */
  setUpstreamAttempt(ctx: Koa.Context, sealed: string, maxAgeSeconds: number): void {
    ctx.append('Set-Cookie', serializeCookie(this.attemptCookie, sealed, maxAgeSeconds, this.secure));
  }

  upstreamAttempt(ctx: Koa.Context): string | null {
    return readCookie(ctx.get('cookie'), this.attemptCookie);
  }

  /** An attempt is used once, whatever its outcome. */
  clearUpstreamAttempt(ctx: Koa.Context): void {
    ctx.append('Set-Cookie', serializeCookie(this.attemptCookie, '', 0, this.secure));
  }

  /** The token for this browser's forms, setting its cookie on first use. */
  csrfToken(ctx: Koa.Context): string {
    let seed = readCookie(ctx.get('cookie'), this.csrfCookie);
    if (!this.secrets.wellFormed(seed)) {
      seed = (ctx.state.csrfSeed as string | undefined) ?? this.secrets.generate();
      if (!ctx.state.csrfSeed) ctx.append('Set-Cookie', serializeCookie(this.csrfCookie, seed, CSRF_COOKIE_SECONDS, this.secure));
      ctx.state.csrfSeed = seed;
    }
    return this.secrets.digest(`csrf:${seed}`);
  }

  /** True when a POST comes from the app's own page in this browser. */
  checkPost(ctx: Koa.Context, submittedToken: string): boolean {
    const origin = ctx.get('origin');
    if (origin && origin !== this.appOrigin) return false;
    const seed = readCookie(ctx.get('cookie'), this.csrfCookie);
    if (!seed || !submittedToken) return false;
    return this.secrets.same(this.secrets.digest(`csrf:${seed}`), submittedToken);
  }
}
