import type Router from '@koa/router';
import type { Container } from 'inversify';
import type Koa from 'koa';
import { ManageSubscriptions, noSuchSubscription, type ListedSubscription, type NewSubscriptionRequest } from '../../../application/delivery/manage-subscriptions.js';
import type { SharingActor } from '../../../application/sharing/sharing-targets.js';
import { invalid, isDomainError, type DomainError } from '../../../domain/errors.js';
import { SUBSCRIPTION_CHANNELS } from '../../../domain/subscriptions.js';
import { shareTokenOf } from '../../presenters/delivery/delivery-addresses.js';
import { deliverSection, type DeliverSectionInput } from './deliver-section.js';
import { field, readForm, type FormFields } from './forms.js';
import type { Html } from './html.js';
import { onRefusal } from './refusals.js';
import type { ShareRouteKit } from './share-links-routes.js';
import { seeOther } from './web-security.js';
import { DASHBOARDS_PATH, dashboardPath, type DetailInput, type DetailView, type Problem } from './dashboards-pages.js';

/** What the dashboard's page is drawn with for delivery: the webhook an add just made. */
export interface DeliverDetailInput extends DetailInput {
  subscribed?: DeliverSectionInput['created'];
}

/** The status lines after a delivery action (the page's `?done=`). */
export const DELIVER_NOTICES: Record<string, string> = {
  'subscription-added': 'Subscription added.',
  'subscription-removed': 'Subscription removed: nothing more is sent to it.',
  'subscription-sent': 'Sent.',
  'subscription-failed': 'The delivery failed; its error is shown under "Deliver".',
};

const person = (userId: string): SharingActor => ({ kind: 'person', userId });

const notManaged = (error: unknown): null => {
  if (isDomainError(error) && error.code === 'not_found') return null;
  throw error;
};

/** The Deliver section of a dashboard's page, with the subscriptions the person may manage. */
export async function deliverSectionOf(container: Container, userId: string, view: DetailView, csrf: string, input: DeliverDetailInput): Promise<Html> {
  const manage = container.get(ManageSubscriptions);
  const subscriptions = await manage.list(person(userId), { ownerName: view.owner.name }, view.dashboard.slug).catch(notManaged);
  const path = dashboardPath(view.owner.name, view.dashboard.slug);
  const visibility = view.dashboard.visibility;
  return deliverSection({ path, csrf, subscriptions, emailEnabled: manage.emailEnabled, visibility, created: input.subscribed, problem: input.problem, values: input.values ?? {} });
}

function subscriptionRequest(form: FormFields): NewSubscriptionRequest {
  const channel = field(form, 'channel');
  if (!SUBSCRIPTION_CHANNELS.includes(channel as NewSubscriptionRequest['channel'])) throw invalid('choose email, Slack or webhook');
  const share = field(form, 'share_link').trim();
  const base = { target: field(form, 'target'), cron: field(form, 'cron').trim() || null, timezone: field(form, 'timezone').trim() || null };
  return { channel: channel as NewSubscriptionRequest['channel'], ...base, shareLinkToken: share === '' ? null : shareTokenOf(share) };
}

/** Where an add refusal goes: the field its text is about, else the form. */
function deliverProblem(error: DomainError): Problem {
  const m = error.message;
  const place = /^the share link\b/.test(m) ? 'share_link' : /^schedule\b/.test(m) ? 'cron' : /^(timezone|a time zone)\b/.test(m) ? 'timezone' : /(email address|webhook|URL|private dashboard|address this service)/i.test(m) ? 'target' : '';
  return { form: 'deliver', field: place, message: m };
}

const typedBack = (form: FormFields) => Object.fromEntries(['channel', 'target', 'cron', 'timezone', 'share_link'].map((key) => [key, field(form, key)]));

/**
 * The Deliver section's forms. Each first lists the dashboard's subscriptions as the person: a dashboard or
 * subscription they may not manage is the one "not found" page, as for one that does not exist.
 */
export function deliverRoutes(router: Router, container: Container, kit: Omit<ShareRouteKit, 'showDetail'> & { showDetail: (ctx: Koa.Context, userId: string, owner: string, slug: string, status: number, input: DeliverDetailInput) => Promise<void> }): void {
  const manage = container.get(ManageSubscriptions);
  const signedIn = async (ctx: Koa.Context, form: FormFields): Promise<string | null> => {
    if (!kit.checkedPost(ctx, form)) return null;
    const userId = await kit.security.userId(ctx, kit.sessions);
    if (!userId) kit.signIn(ctx, dashboardPath(ctx.params.owner!, ctx.params.slug!));
    return userId;
  };
  const managed = (ctx: Koa.Context, userId: string): Promise<ListedSubscription[]> => {
    onRefusal(ctx, kit.unreachable, 'owned');
    return manage.list(person(userId), { ownerName: ctx.params.owner! }, ctx.params.slug!);
  };

  router.post(`${DASHBOARDS_PATH}/:owner/:slug/deliver`, async (ctx) => {
    const form = await readForm(ctx);
    const userId = await signedIn(ctx, form);
    if (!userId) return;
    await managed(ctx, userId);
    const { owner, slug } = ctx.params as Record<string, string>;
    onRefusal(ctx, (ctx, error, status) => kit.showDetail(ctx, userId, owner, slug, status, { problem: deliverProblem(error), values: typedBack(form) }), 'owned');
    const created = await manage.add(person(userId), { ownerName: owner }, slug, subscriptionRequest(form));
    if (created.secret === null) return seeOther(ctx, `${dashboardPath(owner, created.slug)}?done=subscription-added#deliver`);
    await kit.showDetail(ctx, userId, owner, created.slug, 200, { subscribed: { secret: created.secret, target: created.subscription.shownTarget } });
  });

  for (const verb of ['test', 'remove'] as const) {
    router.post(`${DASHBOARDS_PATH}/:owner/:slug/deliver/:id/${verb}`, async (ctx) => {
      const form = await readForm(ctx);
      const userId = await signedIn(ctx, form);
      if (!userId) return;
      const listed = (await managed(ctx, userId)).find((s) => s.subscription.id === ctx.params.id!.toLowerCase());
      if (!listed) throw noSuchSubscription();
      let done = 'subscription-removed';
      if (verb === 'remove') await manage.remove(person(userId), listed.subscription.id);
      else done = (await manage.test(person(userId), listed.subscription.id)).outcome.status === 'sent' ? 'subscription-sent' : 'subscription-failed';
      seeOther(ctx, `${dashboardPath(ctx.params.owner!, listed.slug)}?done=${done}#deliver`);
    });
  }
}
