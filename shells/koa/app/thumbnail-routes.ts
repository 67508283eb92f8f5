import type Router from '@koa/router';
import type Koa from 'koa';
import type { OwnerDashboards } from '../../../application/dashboards/owner-dashboards.js';
import { parseTheme } from '../../../domain/page-theme.js';
import { matchesEtag } from '../dashboards/dashboards-surface.js';
import { DASHBOARDS_PATH } from './dashboards-pages.js';
import { onRefusal, type RefusalPage } from './refusals.js';

interface ThumbnailPages {
  owners: OwnerDashboards;
  user: (ctx: Koa.Context) => Promise<string | null>;
  unreachable: RefusalPage;
}

/**
 * `/dashboards/<owner>/<slug>/thumbnail.png`: the dashboard's image for the signed-in person, on the app's
 * own origin (docs/decisions/0230-thumbnails-on-the-app-origin.md). The use case checks their reach; a
 * dashboard they cannot see answers the same 404 page as a missing one. Never kept by shared caches, and
 * revalidated on every use, so a refresh or a lost membership shows at once.
 */
export function thumbnailRoutes(router: Router, { owners, user, unreachable }: ThumbnailPages): void {
  router.get(`${DASHBOARDS_PATH}/:owner/:slug/thumbnail.png`, async (ctx) => {
    const userId = await user(ctx);
    if (!userId) return;
    onRefusal(ctx, unreachable, 'owned');
    const outcome = await owners.thumbnail(userId, ctx.params.owner!, ctx.params.slug!, {
      theme: parseTheme(ctx.query.theme) ?? 'light',
      holds: (etag) => matchesEtag(ctx.get('if-none-match') || undefined, etag),
    });
    ctx.set('ETag', outcome.etag);
    ctx.set('Cache-Control', 'private, no-cache');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
    if (outcome.kind === 'not_modified') {
      ctx.status = 304;
      return;
    }
    ctx.status = 200;
    ctx.type = 'image/png';
    ctx.body = outcome.body;
  });
}
