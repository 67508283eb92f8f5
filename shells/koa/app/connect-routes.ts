import Router from '@koa/router';
import type Koa from 'koa';
import type { Settings } from '../../../application/ports/settings.js';
import { clientSetup, kitDirectoryName } from '../../client-kit/client-setup.js';
import { clientKitZip } from '../../client-kit/kit-archive.js';
import { CLIENT_KIT_PATH, CONNECT_PATH, connectPage, COPY_SCRIPT_HASH } from './connect-page.js';
import { contentSecurityPolicy } from './html.js';
import { sendPage } from './web-security.js';

/**
 * `/connect` (how to add this instance to each AI client) and `/connect/client-kit.zip` (the Claude
 * Code plugin). Public: a person reads them before having an account, and they hold nothing but
 * this instance's addresses. Compose into the app surface's `extra` middleware.
 */
export function createConnectRoutes(settings: Settings): Router {
  const router = new Router();
  const setup = clientSetup(settings);
  // Both answers depend on settings only, so they are made once.
  const page = connectPage({ displayName: settings.serviceDisplayName, setup });
  // No kit when SERVICE_NAME cannot name a plugin: the page then leaves the plugin out, the download is a 404.
  const kit = setup.pluginProblem ? null : Buffer.from(clientKitZip(settings));
  const kitFile = `${kitDirectoryName(settings)}.zip`;

  router.get(CONNECT_PATH, (ctx: Koa.Context) => {
    sendPage(ctx, 200, page);
    // The app's policy allows no script; this page adds its one copy helper by hash.
    ctx.set('Content-Security-Policy', `${contentSecurityPolicy()}; script-src ${COPY_SCRIPT_HASH}`);
  });

  router.get(CLIENT_KIT_PATH, (ctx: Koa.Context, next: Koa.Next) => {
    if (!kit) return next();
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Disposition', `attachment; filename="${kitFile}"`);
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'application/zip';
    ctx.body = kit;
  });
  return router;
}
