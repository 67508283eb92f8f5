import { createHash, timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';
import type { ShareAccess, ShareOpening } from '../../../application/sharing/share-access.js';
import { readBody } from '../../http/request-body.js';
import { FORM_PAGE_CSP, SERVICE_PAGE_CSP } from './pages.js';
import { sharePasswordPage, shareUnavailablePage } from './share-pages.js';
import { serializeCookie, shareCookieName, sharePendingCookieName, readCookie, type CookieNames } from './viewer-cookies.js';

export const SHARE_PREFIX = '/_share';
const PENDING_MAX_AGE_SECONDS = 900;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** One password field and a CSRF token: far below this. */
const FORM_LIMIT_BYTES = 4096;

/** What the share routes need from the surface. */
export interface ShareSurface {
  shares: ShareAccess;
  cookies: CookieNames;
  displayName: string;
}

/**
 * `/_share/<token>` and its password page on the dashboards host. Opening a link gives the browser a share
 * session cookie for that one dashboard and sends it to the canonical URL; a password-protected link first
 * parks the token in a short-lived cookie and shows the password form at `/_share`, so the token never stays
 * in the address bar, and no answer here sends a Referer onwards.
 */
export async function shareRoute(ctx: Koa.Context, surface: ShareSurface, subdomain: string): Promise<void> {
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('Cache-Control', 'private, no-store');
  ctx.set('X-Frame-Options', 'DENY');
  ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
  const token = ctx.path.slice(SHARE_PREFIX.length + 1);
  if (ctx.path.startsWith(`${SHARE_PREFIX}/`) && ctx.method !== 'POST') {
    await open(ctx, surface, subdomain, token);
    return;
  }
  if (ctx.path !== SHARE_PREFIX) return unavailable(ctx, surface);
  const pending = readCookie(ctx.get('cookie'), sharePendingCookieName(surface.cookies));
  if (pending === null || !TOKEN.test(pending)) return unavailable(ctx, surface);
  if (ctx.method === 'POST') await submitPassword(ctx, surface, subdomain, pending);
  else passwordPage(ctx, surface, 200, pending, null);
}

async function open(ctx: Koa.Context, surface: ShareSurface, subdomain: string, token: string): Promise<void> {
  const opening = await surface.shares.open(subdomain, token);
  if (opening.kind === 'password') {
    ctx.append('Set-Cookie', pendingCookie(surface.cookies, token, PENDING_MAX_AGE_SECONDS));
    ctx.status = 303;
    ctx.set('Location', SHARE_PREFIX);
    return;
  }
  finish(ctx, surface, opening, token);
}

async function submitPassword(ctx: Koa.Context, surface: ShareSurface, subdomain: string, token: string): Promise<void> {
  let fields: URLSearchParams;
  try {
    fields = new URLSearchParams(await readBody(ctx.req, FORM_LIMIT_BYTES));
  } catch {
    return passwordPage(ctx, surface, 400, token, 'The form could not be read. Try again.');
  }
  if (!sameText(fields.get('csrf') ?? '', csrfFor(token))) return passwordPage(ctx, surface, 403, token, 'This form has expired. Enter the password again.');
  const opening = await surface.shares.open(subdomain, token, { password: fields.get('password') ?? '', address: ctx.ip });
  finish(ctx, surface, opening, token);
}

/** The outcome of opening a link, answered: the session and the way to the dashboard, or why not. */
function finish(ctx: Koa.Context, surface: ShareSurface, opening: ShareOpening, token: string): void {
  const { cookies } = surface;
  switch (opening.kind) {
    case 'session':
      ctx.append('Set-Cookie', [
        serializeCookie(shareCookieName(cookies, opening.slug), opening.token, opening.maxAgeSeconds, cookies.secure),
        pendingCookie(cookies, '', 0),
      ]);
      ctx.status = 303;
      ctx.set('Location', `/${opening.slug}`);
      return;
    case 'wrong_password':
      return passwordPage(ctx, surface, 401, token, 'That password is not right. Try again.');
    case 'rate_limited':
      ctx.set('Retry-After', '60');
      return passwordPage(ctx, surface, 429, token, opening.message);
    case 'password':
    case 'not_found':
      return unavailable(ctx, surface);
  }
}

function passwordPage(ctx: Koa.Context, surface: ShareSurface, status: number, token: string, problem: string | null): void {
  ctx.status = status;
  ctx.set('Content-Type', 'text/html; charset=utf-8');
  ctx.set('Content-Security-Policy', FORM_PAGE_CSP);
  ctx.body = sharePasswordPage(surface.displayName, csrfFor(token), problem);
}

function unavailable(ctx: Koa.Context, surface: ShareSurface): void {
  ctx.status = 404;
  ctx.set('Content-Type', 'text/html; charset=utf-8');
  ctx.set('Content-Security-Policy', SERVICE_PAGE_CSP);
  ctx.body = shareUnavailablePage(surface.displayName);
}

/** Bound to the parked token, which only this browser's HttpOnly cookie carries: another site cannot know it. */
const csrfFor = (token: string) => createHash('sha256').update(`dashpub-share-csrf:${token}`).digest('base64url');

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Lax, not Strict: a link opened from a mail or chat is a cross-site navigation, and its redirect must still carry it. */
function pendingCookie(cookies: CookieNames, value: string, maxAgeSeconds: number): string {
  return serializeCookie(sharePendingCookieName(cookies), value, maxAgeSeconds, cookies.secure);
}
