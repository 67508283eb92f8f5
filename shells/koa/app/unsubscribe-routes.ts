import Router from '@koa/router';
import type { Container } from 'inversify';
import { Unsubscribe } from '../../../application/delivery/unsubscribe.js';
import type { Settings } from '../../../application/ports/settings.js';
import { isDomainError } from '../../../domain/errors.js';
import { UNSUBSCRIBE_PATH_PREFIX } from '../../presenters/delivery/delivery-addresses.js';
import { httpStatusOf } from '../http-status.js';
import { readForm } from './forms.js';
import { html, layout } from './html.js';
import { messagePage } from './pages.js';
import { sendPage } from './web-security.js';

/**
 * One-click unsubscribe (RFC 8058) on the app host, without signing in. GET only shows a button, since
 * mail scanners open links; the POST (the button, or the mail client's `List-Unsubscribe=One-Click`)
 * unsubscribes. The token is its own authority, so the POST carries no CSRF token.
 */
export function createUnsubscribeRoutes(container: Container, settings: Settings): Router {
  const router = new Router();
  const displayName = settings.serviceDisplayName;
  const path = `${UNSUBSCRIBE_PATH_PREFIX}:token`;
  router.get(path, (ctx) => {
    const action = `${UNSUBSCRIBE_PATH_PREFIX}${encodeURIComponent(String(ctx.params.token))}`;
    const body = html`<h1>Unsubscribe</h1><p class="muted">Stop receiving this dashboard by email?</p>
      <form method="post" action="${action}"><input type="hidden" name="List-Unsubscribe" value="One-Click"><button type="submit">Unsubscribe</button></form>`;
    sendPage(ctx, 200, layout({ title: 'Unsubscribe', displayName, body }));
    ctx.set('Referrer-Policy', 'no-referrer');
  });
  router.post(path, async (ctx) => {
    await readForm(ctx).catch(() => undefined); // the body says only "One-Click"; the token is what counts
    try {
      const { address } = await container.get(Unsubscribe).run(String(ctx.params.token));
      sendPage(ctx, 200, messagePage(displayName, { title: 'Unsubscribed', message: `${address} will get no more emails of this dashboard.` }));
    } catch (err) {
      if (!isDomainError(err)) throw err;
      sendPage(ctx, httpStatusOf(err, 'link'), messagePage(displayName, { title: 'Link not valid', message: err.message }));
    }
  });
  return router;
}
