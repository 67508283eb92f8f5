import type Router from '@koa/router';
import type { Container } from 'inversify';
import type Koa from 'koa';
import type { WebSessionService } from '../../../application/auth/web-session-service.js';
import type { Settings } from '../../../application/ports/settings.js';
import { ManageShareLinks, noSuchShareLink, type ListedShareLink, type NewLinkRequest } from '../../../application/sharing/manage-share-links.js';
import type { SharingActor } from '../../../application/sharing/sharing-targets.js';
import { parseDuration } from '../../../domain/durations.js';
import { invalid, isDomainError, type DomainError } from '../../../domain/errors.js';
import { shareLinkUrl } from '../../presenters/sharing/share-link-presenters.js';
import { field, readForm, type FormFields } from './forms.js';
import type { Html } from './html.js';
import { onRefusal, type RefusalPage } from './refusals.js';
import { SHARE_EXPIRY_CHOICES, shareLinkName, shareSection, type ShareSectionInput } from './share-section.js';
import { seeOther, type WebSecurity } from './web-security.js';
import { DASHBOARDS_PATH, dashboardPath, type DetailInput, type DetailView, type Problem } from './dashboards-pages.js';

/** What the dashboard's page is drawn with besides its detail: the link a create just made. */
export type ShareDetailInput = DetailInput & { created?: ShareSectionInput['created'] };

/** The parts of the dashboards routes the share routes use (CSRF, sign-in, the page and the "not found" page). */
export interface ShareRouteKit {
  security: WebSecurity;
  sessions: WebSessionService;
  signIn: (ctx: Koa.Context, back: string) => void;
  checkedPost: (ctx: Koa.Context, form: FormFields) => boolean;
  unreachable: RefusalPage;
  showDetail: (ctx: Koa.Context, userId: string, owner: string, slug: string, status: number, input: ShareDetailInput) => Promise<void>;
}

/** The status lines after a link action (the page's `?done=`). */
export const SHARE_NOTICES: Record<string, string> = {
  'link-paused': 'Share link paused: it stops working, also in browsers that opened it, until you resume it.',
  'link-resumed': 'Share link resumed: it works again.',
  'link-revoked': 'Share link revoked: it no longer works, in any browser.',
};

const person = (userId: string): SharingActor => ({ kind: 'person', userId });

/** A person who may view a workspace's dashboard but is not its admin sees no links (the use case's not-found). */
const notManaged = (error: unknown): null => {
  if (isDomainError(error) && error.code === 'not_found') return null;
  throw error;
};

/** The Share section of a dashboard's page, with the links the person may manage. */
export async function shareSectionOf(container: Container, userId: string, view: DetailView, csrf: string, input: ShareDetailInput): Promise<Html> {
  const links = await container.get(ManageShareLinks).list(person(userId), { ownerName: view.owner.name }, view.dashboard.slug).catch(notManaged);
  const path = dashboardPath(view.owner.name, view.dashboard.slug);
  return shareSection({ path, csrf, detail: view, links, created: input.created, problem: input.problem, values: input.values ?? {} });
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** The create form as the use case takes it: a typed date (to the end of that day, UTC) wins over the choice. */
export function newLinkRequest(form: FormFields): NewLinkRequest {
  const request = { label: field(form, 'label'), password: field(form, 'password'), pinnedVersionId: field(form, 'pin') || null };
  const on = field(form, 'expires_on').trim();
  if (on !== '') {
    const match = DATE.exec(on);
    const end = match ? new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3]), 23, 59, 59, 999)) : null;
    if (!end || end.toISOString().slice(0, 10) !== on) throw invalid('expiry date must be a date such as 2027-01-31');
    return { ...request, expiresAt: end };
  }
  const choice = field(form, 'expires') || 'never';
  if (!SHARE_EXPIRY_CHOICES.some(([value]) => value === choice)) throw invalid('expiry must be one of the listed choices');
  return { ...request, expiresInMs: choice === 'never' ? null : parseDuration(choice) };
}

/** Where a create refusal goes: the field its text is about, else the form. */
function shareProblem(error: DomainError): Problem {
  const message = error.message;
  const place = /^label\b/.test(message) ? 'label' : /^password\b/.test(message) ? 'password' : /^(expiry|give an expiry)\b/.test(message) ? 'expires_on' : /^No version\b/.test(message) ? 'pin' : '';
  return { form: 'share', field: place, message };
}

/** What the person typed, shown again beside a refusal; never the password. */
const typedBack = (form: FormFields) => Object.fromEntries(['label', 'expires', 'expires_on', 'pin'].map((key) => [key, field(form, key)]));

/**
 * The Share section's forms. Each first lists the dashboard's links as the person: a dashboard or link they
 * may not manage (another owner's, or a workspace's when they are not its admin) is the one "not found" page.
 */
export function shareLinksRoutes(router: Router, container: Container, settings: Settings, kit: ShareRouteKit): void {
  const manage = container.get(ManageShareLinks);
  /** CSRF, then sign-in; the signed-in person's id, or null when answered already. */
  const signedIn = async (ctx: Koa.Context, form: FormFields): Promise<string | null> => {
    if (!kit.checkedPost(ctx, form)) return null;
    const userId = await kit.security.userId(ctx, kit.sessions);
    if (!userId) kit.signIn(ctx, dashboardPath(ctx.params.owner!, ctx.params.slug!));
    return userId;
  };
  const managed = (ctx: Koa.Context, userId: string): Promise<ListedShareLink[]> => {
    onRefusal(ctx, kit.unreachable, 'owned');
    return manage.list(person(userId), { ownerName: ctx.params.owner! }, ctx.params.slug!);
  };

  // The answer is the page itself, holding the new address once (the page is never cached).
  router.post(`${DASHBOARDS_PATH}/:owner/:slug/share`, async (ctx) => {
    const form = await readForm(ctx);
    const userId = await signedIn(ctx, form);
    if (!userId) return;
    await managed(ctx, userId);
    const { owner, slug } = ctx.params as Record<string, string>;
    onRefusal(ctx, (ctx, error, status) => kit.showDetail(ctx, userId, owner, slug, status, { problem: shareProblem(error), values: typedBack(form) }), 'owned');
    const created = await manage.create(person(userId), { ownerName: owner }, slug, newLinkRequest(form));
    const url = shareLinkUrl(settings, created.subdomain, created.token);
    await kit.showDetail(ctx, userId, owner, created.slug, 200, { created: { url, name: shareLinkName(created.link) } });
  });

  for (const [verb, done] of [['pause', 'link-paused'], ['resume', 'link-resumed'], ['revoke', 'link-revoked']] as const) {
    router.post(`${DASHBOARDS_PATH}/:owner/:slug/share/:link/${verb}`, async (ctx) => {
      const form = await readForm(ctx);
      const userId = await signedIn(ctx, form);
      if (!userId) return;
      const listed = (await managed(ctx, userId)).find((l) => l.link.id === ctx.params.link!.toLowerCase());
      if (!listed) throw noSuchShareLink();
      await manage[verb](person(userId), listed.link.id);
      seeOther(ctx, `${dashboardPath(ctx.params.owner!, listed.slug)}?done=${done}#share`);
    });
  }
}
