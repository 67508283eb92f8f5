import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { DomainError, invalid } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import { ownerOf } from '../../domain/scope.js';
import {
  checkEmailAddress,
  checkWebhookUrl,
  shownWebhook,
  SUBSCRIPTIONS_PER_DASHBOARD,
  type Subscription,
  type SubscriptionChannel,
} from '../../domain/subscriptions.js';
import { AccountStore } from '../ports/account-store.js';
import { Clock } from '../ports/clock.js';
import { DashboardStore, type DashboardRecord } from '../ports/dashboard-store.js';
import { DeliverySecretSealer, MailSender, WebhookPoster } from '../ports/delivery-ports.js';
import type { SecretSealer } from '../ports/secret-sealer.js';
import { SecretTokens } from '../ports/secret-tokens.js';
import { ShareLinkStore } from '../ports/share-link-store.js';
import { SubscriptionStore } from '../ports/subscription-store.js';
import { shareLinkStatus } from '../../domain/share-links.js';
import { nextRuns, parseSchedule } from '../refresh/cron.js';
import { SharingTargets, type OwnerNaming, type SharingActor } from '../sharing/sharing-targets.js';
import { Deliver, type DeliveryOutcome } from './deliver.js';

export interface NewSubscriptionRequest {
  channel: SubscriptionChannel;
  /** The email address or the webhook URL. */
  target: string;
  cron?: string | null;
  timezone?: string | null;
  /** A share link's token: sent instead of the canonical URL; it must be an active link of this dashboard. */
  shareLinkToken?: string | null;
}

/** A subscription as lists show it, with its dashboard's subdomain and slug. */
export interface ListedSubscription {
  subscription: Subscription;
  subdomain: string;
  slug: string;
}

/** Made once: a generic webhook's signing secret is in this answer and nowhere else. */
export interface CreatedSubscription extends ListedSubscription {
  secret: string | null;
}

export const noSuchSubscription = () => new DomainError('not_found', 'No such subscription');

/**
 * Adding, listing, removing and test-sending delivery subscriptions, for a person (web app) or the
 * operator (CLI), under SharingTargets' tenant check: owner or workspace admin, else "No such dashboard".
 * A private dashboard delivers by email only to its owner's address or its workspace members'.
 */
@injectable()
export class ManageSubscriptions {
  constructor(
    @inject(SharingTargets) private readonly targets: SharingTargets,
    @inject(SubscriptionStore) private readonly subscriptions: SubscriptionStore,
    @inject(DashboardStore) private readonly dashboards: DashboardStore,
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(WebhookPoster) private readonly poster: WebhookPoster,
    @inject(MailSender) private readonly mail: MailSender,
    @inject(SecretTokens) private readonly tokens: SecretTokens,
    @inject(DeliverySecretSealer) private readonly sealer: SecretSealer,
    @inject(Deliver) private readonly deliver: Deliver,
    @inject(ShareLinkStore) private readonly shareLinks: ShareLinkStore,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** Whether email delivery is configured (SMTP_URL and MAIL_FROM). */
  get emailEnabled(): boolean {
    return this.mail.enabled;
  }

  async add(actor: SharingActor, owner: OwnerNaming, slug: string, request: NewSubscriptionRequest): Promise<CreatedSubscription> {
    const shared = await this.targets.forActor(actor, owner, slug);
    const now = this.clock.now();
    const schedule = this.schedule(request, now);
    const parts = await this.channelParts(shared.dashboard, request);
    const sealedShareToken = await this.sharedLink(shared.dashboard, request.shareLinkToken, now);
    if ((await this.subscriptions.countForDashboard(shared.dashboard.id)) >= SUBSCRIPTIONS_PER_DASHBOARD) {
      throw new DomainError('limit_reached', `A dashboard can have at most ${SUBSCRIPTIONS_PER_DASHBOARD} subscriptions. Remove one first.`);
    }
    const subscription: Subscription = {
      id: randomUUID(),
      dashboardId: shared.dashboard.id,
      channel: request.channel,
      shownTarget: parts.shownTarget,
      viaShareLink: sealedShareToken !== null,
      ...schedule,
      paused: false,
      consecutiveFailures: 0,
      lastError: null,
      lastFailureAt: null,
      lastDeliveredAt: null,
      createdBy: actor.kind === 'person' ? actor.userId : null,
      createdAt: now,
    };
    await this.subscriptions.insert({ ...subscription, owner: shared.dashboard.owner, sealedUrl: parts.sealedUrl, sealedSecret: parts.secret === null ? null : this.sealer.seal(parts.secret), sealedShareToken });
    return { subscription, subdomain: shared.subdomain, slug: shared.dashboard.slug, secret: parts.secret };
  }

  /** One dashboard's subscriptions when `slug` is given, else every one of the owner (the CLI's `subscription list`). */
  async list(actor: SharingActor, owner: OwnerNaming, slug?: string): Promise<ListedSubscription[]> {
    if (slug !== undefined) {
      const shared = await this.targets.forActor(actor, owner, slug);
      return this.present(await this.subscriptions.list(shared.dashboard.owner, shared.dashboard.id), shared.subdomain);
    }
    if (actor.kind !== 'operator' || 'ownerName' in owner) throw invalid('name the dashboard');
    const target = await this.targets.operatorTarget(owner);
    return this.present(await this.subscriptions.list(ownerOf(target.target), undefined), target.subdomain);
  }

  async remove(actor: SharingActor, id: string): Promise<ListedSubscription> {
    const found = await this.find(actor, id);
    await this.subscriptions.delete(found.subscription.id);
    return found;
  }

  /** Sends now, paused or not, and says how it went (the failure counts like any other). */
  async test(actor: SharingActor, id: string): Promise<ListedSubscription & { outcome: DeliveryOutcome }> {
    const found = await this.find(actor, id);
    const outcome = await this.deliver.run(found.subscription.id, { final: true, force: true });
    const after = await this.subscriptions.findById(found.subscription.id);
    return { ...found, subscription: after ?? found.subscription, outcome };
  }

  private async find(actor: SharingActor, id: string): Promise<ListedSubscription> {
    const subscription = isUuid(id) ? await this.subscriptions.findById(id.toLowerCase()) : null;
    const dashboard = subscription ? await this.dashboards.findDashboardById(subscription.dashboardId) : null;
    if (!subscription || !dashboard || !(await this.targets.mayManage(actor, dashboard))) throw noSuchSubscription();
    return { subscription, subdomain: await this.targets.subdomainOf(dashboard), slug: dashboard.slug };
  }


  private schedule(request: NewSubscriptionRequest, now: Date): Pick<Subscription, 'cron' | 'timezone' | 'nextRunAt'> {
    if (request.cron === undefined || request.cron === null || request.cron === '') {
      if (request.timezone) throw invalid('a time zone goes with a cron schedule: give --cron too, or leave the time zone out');
      return { cron: null, timezone: null, nextRunAt: null };
    }
    const { cron, timezone } = parseSchedule(request.cron, request.timezone ?? undefined);
    return { cron, timezone, nextRunAt: nextRuns(cron, timezone, now, 1)[0] ?? null };
  }

  private async channelParts(dashboard: DashboardRecord, request: NewSubscriptionRequest): Promise<{ shownTarget: string; sealedUrl: string | null; secret: string | null }> {
    if (request.channel === 'email') {
      const address = checkEmailAddress(request.target);
      if (dashboard.visibility === 'private' && !(await this.isInsider(dashboard, address))) {
        throw invalid('A private dashboard is delivered only to its owner\'s address or to members of its workspace.');
      }
      return { shownTarget: address, sealedUrl: null, secret: null };
    }
    if (request.channel !== 'slack' && request.channel !== 'webhook') throw invalid('a subscription sends by email, slack or webhook');
    const url = checkWebhookUrl(request.target, request.channel);
    await this.poster.check(url.href);
    const secret = request.channel === 'webhook' ? this.tokens.generate() : null;
    return { shownTarget: shownWebhook(url), sealedUrl: this.sealer.seal(url.href), secret };
  }

  /** The sealed token of the share link to send, checked to be an active link of this dashboard; null for the canonical URL. */
  private async sharedLink(dashboard: DashboardRecord, token: string | null | undefined, now: Date): Promise<string | null> {
    if (token === undefined || token === null || token === '') return null;
    const link = this.tokens.wellFormed(token) ? await this.shareLinks.findByTokenHash(this.tokens.digest(token)) : null;
    if (!link || link.dashboardId !== dashboard.id || shareLinkStatus(link, now) !== 'active') {
      throw invalid('the share link to send must be an active share link of this dashboard, as `share create` or the Share section gave it');
    }
    return this.sealer.seal(token);
  }

  /** The owner's address, or a workspace member's (compared without regard to case). */
  private async isInsider(dashboard: DashboardRecord, address: string): Promise<boolean> {
    const same = (email: string) => email.toLowerCase() === address.toLowerCase();
    if (dashboard.owner.kind === 'user') return same((await this.accounts.findUserById(dashboard.owner.id))?.email ?? '');
    return (await this.accounts.listMembers(dashboard.owner.id)).some((m) => same(m.user.email));
  }

  private async present(subscriptions: Subscription[], subdomain: string): Promise<ListedSubscription[]> {
    const slugs = new Map<string, string>();
    for (const id of new Set(subscriptions.map((s) => s.dashboardId))) slugs.set(id, (await this.dashboards.findDashboardById(id))?.slug ?? '');
    return subscriptions.map((subscription) => ({ subscription, subdomain, slug: slugs.get(subscription.dashboardId) ?? '' }));
  }
}
