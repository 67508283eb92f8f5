import Router from '@koa/router';
import type { Container } from 'inversify';
import type Koa from 'koa';
import { OwnerDashboards, type ListFilters } from '../../../application/dashboards/owner-dashboards.js';
import { WebSessionService } from '../../../application/auth/web-session-service.js';
import { SecretTokens } from '../../../application/ports/secret-tokens.js';
import type { Settings } from '../../../application/ports/settings.js';
import { contentTypeFor } from '../../../domain/content-types.js';
import type { DomainError } from '../../../domain/errors.js';
import { dashboardUrl, versionJson } from '../../presenters/dashboards/dashboard-presenters.js';
import { field, readForm, type FormFields } from './forms.js';
import { contentSecurityPolicy } from './html.js';
import { messagePage } from './pages.js';
import { onRefusal, type RefusalPage } from './refusals.js';
import { seeOther, sendPage, WebSecurity } from './web-security.js';
import { SHARE_NOTICES, shareLinksRoutes, shareSectionOf, type ShareDetailInput } from './share-links-routes.js';
import { embedPanel, embedRoutes } from './embed-routes.js';
import { thumbnailRoutes } from './thumbnail-routes.js';
import { DELIVER_NOTICES, deliverRoutes, deliverSectionOf, type DeliverDetailInput } from './deliver-routes.js';
import {
  DASHBOARDS_PATH,
  dashboardPath,
  deletePage,
  detailPage,
  detailView,
  listPage,
  ownerListPath,
  versionPage,
  type DetailView,
  type Problem,
} from './dashboards-pages.js';

const NOTICES: Record<string, string> = {
  saved: 'Saved.',
  'embed-on': 'Embedding is on.',
  'embed-off': 'Embedding is off: every embed URL of this dashboard stopped working.',
  'embed-origins': 'Allowed origins saved.',
  restored: 'Restored: that version is now the current one, and the version it replaced is kept as a snapshot.',
  named: 'Version named: it is kept until you remove its name.',
  unnamed: 'Name removed: the version can be pruned again.',
  schedule: 'Schedule saved.',
  queued: 'Refresh queued. Its outcome appears under "Last runs" when it finishes.',
  folded: 'A refresh of this dashboard was already waiting; this request was folded into it.',
  ...SHARE_NOTICES,
  ...DELIVER_NOTICES,
};

const text = (value: unknown) => (typeof value === 'string' ? value : '');
/** A slug named in a notice's link parameter; anything else is not echoed (a crafted link could say anything). */
const slugParam = (value: unknown) => (typeof value === 'string' && /^[a-z0-9-]{1,64}$/.test(value) ? value : null);
const oneOf = <T extends string>(value: unknown, allowed: readonly T[]): T | undefined => (allowed.includes(value as T) ? (value as T) : undefined);

/** Where a metadata refusal belongs: the field its text starts with, else the form. */
const metadataField = (message: string) => (/^(name|tags|visibility)\b/.exec(message)?.[1] ?? '');

/**
 * The web app's dashboards pages. Every action calls OwnerDashboards, which runs the MCP tools' own
 * use cases, so rules and refusal texts are the tools'. Anything the person cannot reach answers the
 * same 404 page as a dashboard that does not exist. Refusals propagate to the app surface's one catch,
 * which draws the page each route names (`onRefusal`, kind `owned`) with the status from
 * shells/koa/http-status.ts.
 */
export function createDashboardsRoutes(container: Container, settings: Settings): Router {
  const pages = dashboardsPages(container, settings);
  const router = new Router();
  listRoutes(router, pages);
  versionRoutes(router, pages);
  actionRoutes(router, pages);
  deleteRoutes(router, pages);
  shareLinksRoutes(router, container, settings, pages);
  embedRoutes(router, pages, container, settings);
  deliverRoutes(router, container, pages);
  thumbnailRoutes(router, pages);
  return router;
}

type Pages = ReturnType<typeof dashboardsPages>;

/** What every dashboards route shares: the use cases, the page chrome and the refusal pages. */
function dashboardsPages(container: Container, settings: Settings) {
  const owners = container.get(OwnerDashboards);
  const sessions = container.get(WebSessionService);
  const security = new WebSecurity(settings, container.get<SecretTokens>(SecretTokens));
  const displayName = settings.serviceDisplayName;
  const dashboardFrames = `${settings.dashboardScheme}://*.${settings.dashboardDomain}`;

  const chrome = (ctx: Koa.Context) => ({ displayName, csrf: security.csrfToken(ctx) });
  const signIn = (ctx: Koa.Context, back: string) => seeOther(ctx, `/sign-in?return_to=${encodeURIComponent(back)}`);
  const notFound = (ctx: Koa.Context) =>
    sendPage(ctx, 404, messagePage(displayName, { title: 'Dashboard not found', message: 'There is no dashboard at this address, or it is not yours to see.', link: { href: DASHBOARDS_PATH, text: 'Your dashboards' } }));
  /** The dashboards pages' policy: images from the app itself (thumbnail-routes.ts), plus a frame source when the page frames one. */
  const sendDashboardsPage = (ctx: Koa.Context, status: number, body: string, frameSource?: string) => {
    sendPage(ctx, status, body);
    ctx.set('Content-Security-Policy', contentSecurityPolicy([], ["'self'"]) + (frameSource ? `; frame-src ${frameSource}` : ''));
  };

  const user = async (ctx: Koa.Context): Promise<string | null> => {
    const userId = await security.userId(ctx, sessions);
    if (!userId) signIn(ctx, ctx.method === 'GET' ? ctx.originalUrl : DASHBOARDS_PATH);
    return userId;
  };

  /** A page's refusal: what the person cannot reach (404: missing or not theirs) is the one "not found" page. */
  const unreachable: RefusalPage = (ctx, error, status) =>
    status === 404
      ? notFound(ctx)
      : sendPage(ctx, status, messagePage(displayName, { title: 'This cannot be done', message: error.message, link: { href: DASHBOARDS_PATH, text: 'Your dashboards' } }));
  /** For an address naming a version or file: one that cannot name anything (400) leads nowhere either. */
  const unreachableAddress: RefusalPage = (ctx, error, status) => unreachable(ctx, error, status === 400 ? 404 : status);

  /** The dashboard's page; a refusal while reading it is `unreachable`. */
  const showDetail = async (ctx: Koa.Context, userId: string, owner: string, slug: string, status: number, input: ShareDetailInput & DeliverDetailInput) => {
    onRefusal(ctx, unreachable, 'owned');
    const detail = await owners.detail(userId, owner, slug);
    if (detail.dashboard.slug !== slug) return seeOther(ctx, dashboardPath(owner, detail.dashboard.slug));
    const problem = input.problem;
    // A refusal about a version no longer listed goes to the top of the page.
    if (problem?.form.startsWith('version-') && !detail.versions.some((v) => `version-${v.id}` === problem.form)) problem.form = 'page';
    const view = detailView(settings, detail);
    sendDashboardsPage(ctx, status, detailPage(chrome(ctx), view, { ...input, ...(await sharingSections(container, userId, owner, view, chrome(ctx).csrf, input)) }), dashboardFrames);
  };

  /** A POSTed form's CSRF check; false when refused (the response is already set). */
  const checkedPost = (ctx: Koa.Context, form: FormFields) => {
    if (security.checkPost(ctx, field(form, 'csrf'))) return true;
    sendPage(ctx, 403, messagePage(displayName, { title: 'This form has expired', message: 'Reload the page and try again.', link: { href: DASHBOARDS_PATH, text: 'Your dashboards' } }));
    return false;
  };

  const deleteInput = (detail: Awaited<ReturnType<OwnerDashboards['detail']>>) => ({
    owner: detail.owner,
    name: detail.dashboard.name,
    slug: detail.dashboard.slug,
    url: dashboardUrl(settings, detail.target, detail.dashboard.slug),
    versions: detail.versions.length,
  });

  return { owners, sessions, security, chrome, signIn, notFound, sendDashboardsPage, user, unreachable, unreachableAddress, showDetail, checkedPost, deleteInput };
}

/** The Share section and the embed settings, each only for a person who manages the dashboard's sharing. */
async function sharingSections(container: Container, userId: string, owner: string, view: DetailView, csrf: string, input: ShareDetailInput & DeliverDetailInput) {
  const deliver = await deliverSectionOf(container, userId, view, csrf, input);
  return { share: await shareSectionOf(container, userId, view, csrf, input), embedSection: await embedPanel(container).section(userId, owner, view.dashboard.slug, csrf, input), deliver };
}

/** The list of dashboards and each dashboard's page. */
function listRoutes(router: Router, { owners, chrome, user, unreachable, showDetail, sendDashboardsPage }: Pages): void {
  router.get(DASHBOARDS_PATH, async (ctx) => {
    const userId = await user(ctx);
    if (!userId) return;
    const ownerName = text(ctx.query.owner) || (await owners.owners(userId))[0].name;
    const filters: ListFilters = {
      search: text(ctx.query.q),
      tag: text(ctx.query.tag),
      visibility: oneOf(ctx.query.visibility, ['public', 'private'] as const),
      kind: oneOf(ctx.query.kind, ['static', 'refreshable'] as const),
      cursor: text(ctx.query.cursor),
    };
    const input = {
      search: filters.search ?? '',
      tag: filters.tag ?? '',
      visibility: filters.visibility ?? '',
      kind: filters.kind ?? '',
      cursor: filters.cursor ?? '',
      notice: slugParam(ctx.query.deleted) ? `Deleted "${slugParam(ctx.query.deleted)}".` : undefined,
    };
    // A refused list (400: a cursor that is not ours) shows the first page with the reason.
    onRefusal(ctx, async (ctx, error, status) => {
      if (status !== 400) return unreachable(ctx, error, status);
      onRefusal(ctx, unreachable, 'owned');
      sendDashboardsPage(ctx, 400, listPage(chrome(ctx), await owners.list(userId, ownerName, { ...filters, cursor: undefined }), { ...input, cursor: '', error: error.message }));
    }, 'owned');
    sendDashboardsPage(ctx, 200, listPage(chrome(ctx), await owners.list(userId, ownerName, filters), input));
  });

  router.get(`${DASHBOARDS_PATH}/:owner`, async (ctx) => {
    if (await user(ctx)) seeOther(ctx, ownerListPath(ctx.params.owner!));
  });

  router.get(`${DASHBOARDS_PATH}/:owner/:slug`, async (ctx) => {
    const userId = await user(ctx);
    if (!userId) return;
    const done = text(ctx.query.done);
    const from = slugParam(ctx.query.from);
    const notice = done === 'renamed' && from ? `Renamed from "${from}". Its old address now redirects (301) here.` : Object.hasOwn(NOTICES, done) ? NOTICES[done] : undefined;
    await showDetail(ctx, userId, ctx.params.owner!, ctx.params.slug!, 200, { notice });
  });
}

/** One version's page and its files. */
function versionRoutes(router: Router, { owners, chrome, user, notFound, sendDashboardsPage, unreachableAddress }: Pages): void {
  router.get(`${DASHBOARDS_PATH}/:owner/:slug/versions/:version`, async (ctx) => {
    const userId = await user(ctx);
    if (!userId) return;
    const { owner: ownerName, slug, version: versionId } = ctx.params as Record<string, string>;
    onRefusal(ctx, unreachableAddress, 'owned');
    const found = await owners.version(userId, ownerName, slug, versionId);
    const owner = (await owners.owners(userId)).find((o) => o.name === ownerName)!;
    const version = versionJson(found.version, found.dashboard.currentVersionId);
    const page = versionPage(chrome(ctx), { owner, name: found.dashboard.slug, slug: found.dashboard.slug, version, filename: found.body?.filename ?? '', current: version.current });
    sendDashboardsPage(ctx, 200, page, "'self'");
  });

  // One file of one version, framed by the version page. Served sandboxed (an opaque origin, so its
  // scripts reach neither the app's cookies nor its forms), framable only by the app itself, and loadable
  // by no other origin (CORP): an HTML page keeps its type for the preview, which nosniff stops from
  // running as a script or style; every other file is plain text, so another site's page cannot run it.
  router.get(`${DASHBOARDS_PATH}/:owner/:slug/versions/:version/files/:filename`, async (ctx) => {
    const userId = await user(ctx);
    if (!userId) return;
    const { owner, slug, version, filename } = ctx.params as Record<string, string>;
    onRefusal(ctx, unreachableAddress, 'owned');
    const { body } = await owners.version(userId, owner, slug, version, filename);
    if (!body) return notFound(ctx);
    const contentType = contentTypeFor(body.filename);
    const page = contentType.startsWith('text/html');
    ctx.status = 200;
    ctx.set('Content-Security-Policy', "sandbox allow-scripts; frame-ancestors 'self'");
    ctx.set('X-Frame-Options', 'SAMEORIGIN');
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Cross-Origin-Resource-Policy', 'same-origin');
    ctx.set('Referrer-Policy', 'no-referrer');
    ctx.set('Cache-Control', 'no-store');
    ctx.type = page ? contentType : 'text/plain; charset=utf-8';
    ctx.body = Buffer.from(body.content, body.encoding);
  });
}

/**
 * One POST action on a dashboard: CSRF, sign-in, then `run`, which answers the path to go to (303).
 * A refusal re-renders the dashboard's page, with the table's status and the text next to the field
 * `place` names; one the person cannot reach (a missing owner or dashboard) ends on the "not found" page.
 */
function postAction(router: Router, { sessions, security, signIn, checkedPost, showDetail }: Pages) {
  return (
    suffix: string,
    run: (userId: string, owner: string, slug: string, form: FormFields, params: Record<string, string>) => Promise<string>,
    place: (error: DomainError, params: Record<string, string>) => Problem,
  ) =>
    router.post(`${DASHBOARDS_PATH}/:owner/:slug${suffix}`, async (ctx) => {
      const form = await readForm(ctx);
      const params = ctx.params as Record<string, string>;
      if (!checkedPost(ctx, form)) return;
      const userId = await security.userId(ctx, sessions);
      if (!userId) return signIn(ctx, dashboardPath(params.owner!, params.slug!));
      onRefusal(ctx, (ctx, error, status) => {
        const values = Object.fromEntries(Object.entries(form).filter(([key]) => key !== 'csrf').map(([key, value]) => [key, String(value)]));
        return showDetail(ctx, userId, params.owner!, params.slug!, status, { problem: place(error, params), values });
      }, 'owned');
      seeOther(ctx, await run(userId, params.owner!, params.slug!, form, params));
    });
}

const back = (owner: string, slug: string, done: string) => `${dashboardPath(owner, slug)}?done=${done}`;

/** The POST actions on a dashboard's page. */
function actionRoutes(router: Router, pages: Pages): void {
  const { owners } = pages;
  const action = postAction(router, pages);

  action(
    '/settings',
    async (userId, owner, slug, form) => {
      const tags = field(form, 'tags').split(',').map((t) => t.trim()).filter(Boolean);
      await owners.update(userId, owner, slug, { name: field(form, 'name'), tags, visibility: field(form, 'visibility') });
      return back(owner, slug, 'saved');
    },
    (error) => ({ form: 'metadata', field: metadataField(error.message), message: error.message }),
  );

  action(
    '/rename',
    async (userId, owner, slug, form) => {
      const renamed = await owners.rename(userId, owner, slug, field(form, 'new_slug').trim());
      return `${dashboardPath(owner, renamed.dashboard.slug)}?done=renamed&from=${encodeURIComponent(slug)}`;
    },
    (error) => ({ form: 'rename', field: 'new_slug', message: error.message }),
  );

  action(
    '/schedule',
    async (userId, owner, slug, form) => {
      await owners.setSchedule(userId, owner, slug, field(form, 'schedule'), field(form, 'timezone'));
      return back(owner, slug, 'schedule');
    },
    (error) => ({ form: 'schedule', field: /^timezone\b/.test(error.message) ? 'timezone' : /^schedule\b/.test(error.message) ? 'schedule' : '', message: error.message }),
  );

  action(
    '/refresh',
    async (userId, owner, slug) => {
      const result = await owners.refreshNow(userId, owner, slug);
      return back(owner, slug, result.queued ? 'queued' : 'folded');
    },
    (error) => ({ form: 'refresh', message: error.message }),
  );

  action(
    '/versions/:version/name',
    async (userId, owner, slug, form, params) => {
      const named = await owners.nameVersion(userId, owner, slug, params.version!, field(form, 'name'));
      return back(owner, slug, named.version.name ? 'named' : 'unnamed');
    },
    (error, params) => ({ form: `version-${params.version}`, field: 'name', message: error.message }),
  );

  action(
    '/versions/:version/restore',
    async (userId, owner, slug, _form, params) => {
      await owners.restoreVersion(userId, owner, slug, params.version!);
      return back(owner, slug, 'restored');
    },
    (error, params) => ({ form: `version-${params.version}`, message: error.message }),
  );
}

/** Deleting a dashboard: the confirmation page and its form. */
function deleteRoutes(router: Router, { owners, sessions, security, chrome, user, signIn, checkedPost, unreachable, deleteInput }: Pages): void {
  router.get(`${DASHBOARDS_PATH}/:owner/:slug/delete`, async (ctx) => {
    const userId = await user(ctx);
    if (!userId) return;
    const { owner, slug } = ctx.params as Record<string, string>;
    onRefusal(ctx, unreachable, 'owned');
    const detail = await owners.detail(userId, owner, slug);
    if (detail.dashboard.slug !== slug) return seeOther(ctx, `${dashboardPath(owner, detail.dashboard.slug)}/delete`);
    sendPage(ctx, 200, deletePage(chrome(ctx), deleteInput(detail)));
  });

  router.post(`${DASHBOARDS_PATH}/:owner/:slug/delete`, async (ctx) => {
    const form = await readForm(ctx);
    const { owner, slug } = ctx.params as Record<string, string>;
    if (!checkedPost(ctx, form)) return;
    const userId = await security.userId(ctx, sessions);
    if (!userId) return signIn(ctx, dashboardPath(owner, slug));
    onRefusal(ctx, unreachable, 'owned');
    const typed = field(form, 'confirm').trim();
    if (typed !== slug) {
      const detail = await owners.detail(userId, owner, slug);
      const error = `Type "${slug}" exactly to confirm; nothing was deleted.`;
      return sendPage(ctx, 400, deletePage(chrome(ctx), { ...deleteInput(detail), error, typed }));
    }
    await owners.remove(userId, owner, slug);
    seeOther(ctx, `${ownerListPath(owner)}&deleted=${encodeURIComponent(slug)}`);
  });
}
