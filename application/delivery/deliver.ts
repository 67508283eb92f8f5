import { inject, injectable } from 'inversify';
import { DomainError } from '../../domain/errors.js';
import { deliveryErrorText, PAUSE_AFTER_FAILURES } from '../../domain/subscriptions.js';
import { AccountStore } from '../ports/account-store.js';
import { SecretTokens } from '../ports/secret-tokens.js';
import { ShareLinkStore } from '../ports/share-link-store.js';
import { shareLinkStatus } from '../../domain/share-links.js';
import { Clock } from '../ports/clock.js';
import { DashboardAddresses } from '../ports/dashboard-addresses.js';
import { DashboardStore } from '../ports/dashboard-store.js';
import { DeliveryAddresses, DeliverySecretSealer, MailSender, UnsubscribeSealer, WebhookPoster, type AlertNotice } from '../ports/delivery-ports.js';
import { RefreshStateStore } from '../ports/refresh-state-store.js';
import type { SecretSealer } from '../ports/secret-sealer.js';
import { SubscriptionStore, type StoredSubscription } from '../ports/subscription-store.js';
import { SharingTargets } from '../sharing/sharing-targets.js';
import { DeliveryImage } from './delivery-image.js';
import { AlertStates, type AlertView } from '../alerts/alert-states.js';
import { alertEmail, alertSlackMessage } from './alert-message.js';
import { ownerAddresses } from '../alerts/owner-addresses.js';
import { deliveryEmail, pausedNotice, SIGNATURE_HEADER, slackMessage, TIMESTAMP_HEADER, webhookBody, webhookSignature, type DeliveryContent } from './delivery-message.js';

export type DeliveryOutcome = { status: 'sent' } | { status: 'failed'; error: string; paused: boolean } | { status: 'skipped'; reason: string };

/**
 * Sends one delivery of one subscription and records how it went. A failed attempt that will be retried
 * keeps its error without counting; the last attempt counts a failure, and PAUSE_AFTER_FAILURES in a
 * row pause the subscription, which the owner is told by email when email is on.
 */
@injectable()
export class Deliver {
  constructor(
    @inject(SubscriptionStore) private readonly subscriptions: SubscriptionStore,
    @inject(DashboardStore) private readonly dashboards: DashboardStore,
    @inject(RefreshStateStore) private readonly refreshState: RefreshStateStore,
    @inject(SharingTargets) private readonly targets: SharingTargets,
    @inject(DashboardAddresses) private readonly addresses: DashboardAddresses,
    @inject(DeliveryAddresses) private readonly deliveryAddresses: DeliveryAddresses,
    @inject(MailSender) private readonly mail: MailSender,
    @inject(WebhookPoster) private readonly poster: WebhookPoster,
    @inject(DeliverySecretSealer) private readonly secrets: SecretSealer,
    @inject(UnsubscribeSealer) private readonly unsubscribe: SecretSealer,
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(ShareLinkStore) private readonly shareLinks: ShareLinkStore,
    @inject(SecretTokens) private readonly tokens: SecretTokens,
    @inject(DeliveryImage) private readonly image: DeliveryImage,
    @inject(AlertStates) private readonly alertStates: AlertStates,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** `final`: no retry follows, so a failure counts. Throws on a failure that will be retried. */
  async run(subscriptionId: string, options: { final: boolean; force?: boolean; alert?: AlertNotice }): Promise<DeliveryOutcome> {
    const subscription = await this.subscriptions.findById(subscriptionId);
    if (!subscription) return { status: 'skipped', reason: 'the subscription no longer exists' };
    if (subscription.paused && !options.force) return { status: 'skipped', reason: 'the subscription is paused' };
    try {
      await this.send(subscription, options.alert ?? null);
    } catch (err) {
      const error = deliveryErrorText(err instanceof Error ? err.message : String(err));
      const now = this.clock.now();
      if (!options.final) {
        await this.subscriptions.recordAttemptError(subscription.id, error, now);
        throw err;
      }
      const after = await this.subscriptions.recordFailure(subscription.id, error, now, PAUSE_AFTER_FAILURES);
      // Told once, on the failure that paused it.
      if (after?.paused && after.consecutiveFailures === PAUSE_AFTER_FAILURES) await this.tellOwner(subscription, error);
      return { status: 'failed', error, paused: after?.paused ?? false };
    }
    await this.subscriptions.recordSuccess(subscription.id, this.clock.now());
    return { status: 'sent' };
  }

  private async send(subscription: StoredSubscription, alert: AlertNotice | null): Promise<void> {
    const content = { ...(await this.content(subscription)), alert };
    if (subscription.channel === 'email') {
      if (!this.mail.enabled) throw new DomainError('unavailable', 'email delivery is off: the operator has not set SMTP_URL and MAIL_FROM');
      const token = Buffer.from(this.unsubscribe.seal(subscription.id), 'utf8').toString('base64url');
      const unsubscribeUrl = this.deliveryAddresses.unsubscribeUrl(token);
      await this.mail.send(alert ? alertEmail(content, alert, subscription.shownTarget, unsubscribeUrl) : deliveryEmail(content, subscription.shownTarget, unsubscribeUrl));
      return;
    }
    const url = this.secrets.open(subscription.sealedUrl!);
    if (subscription.channel === 'slack') {
      await this.poster.post(url, alert ? alertSlackMessage(content, alert) : slackMessage(content), {});
      return;
    }
    const body = webhookBody(content);
    const timestamp = String(Math.floor(this.clock.now().getTime() / 1000));
    const signature = webhookSignature(this.secrets.open(subscription.sealedSecret!), timestamp, body);
    await this.poster.post(url, body, { [TIMESTAMP_HEADER]: timestamp, [SIGNATURE_HEADER]: signature });
  }

  /** The chosen share link's URL, while the link still works: a revoked, paused or expired one is a failure the owner sees. */
  private async shareUrl(owner: string, sealedToken: string): Promise<string> {
    const token = this.secrets.open(sealedToken);
    const link = await this.shareLinks.findByTokenHash(this.tokens.digest(token));
    if (!link || shareLinkStatus(link, this.clock.now()) !== 'active') {
      throw new Error('the share link this subscription sends was revoked, paused or has expired; add the subscription again with a working link');
    }
    return this.deliveryAddresses.shareLinkUrl(owner, token);
  }

  /** The owner's (or the workspace admins') notice of a pause, by email when it is on; best effort, as the page shows it too. */
  private async tellOwner(subscription: StoredSubscription, error: string): Promise<void> {
    const dashboard = await this.dashboards.findDashboardById(subscription.dashboardId);
    if (!dashboard || !this.mail.enabled) return;
    const owner = await this.targets.subdomainOf(dashboard);
    const manageUrl = this.deliveryAddresses.deliverSectionUrl(owner, dashboard.slug);
    for (const to of await ownerAddresses(this.accounts, dashboard.owner)) {
      const notice = pausedNotice({ to, dashboardName: dashboard.name, target: subscription.shownTarget, failures: PAUSE_AFTER_FAILURES, error, manageUrl });
      await this.mail.send(notice).catch(() => undefined); // the Deliver section shows the pause whether or not this arrives
    }
  }

  private async content(subscription: StoredSubscription): Promise<DeliveryContent> {
    const dashboard = await this.dashboards.findDashboardById(subscription.dashboardId);
    if (!dashboard) throw new Error('the dashboard no longer exists');
    const live = await this.refreshState.liveRender(dashboard.id);
    const owner = await this.targets.subdomainOf(dashboard);
    return {
      dashboardName: dashboard.name,
      dashboardId: dashboard.id,
      slug: dashboard.slug,
      versionId: dashboard.currentVersionId,
      url: subscription.sealedShareToken === null ? this.addresses.pageUrl(owner, dashboard.slug) : await this.shareUrl(owner, subscription.sealedShareToken),
      refreshedAt: live?.renderedAt ?? dashboard.updatedAt,
      image: await this.image.of(dashboard, owner).catch(() => null), // a delivery without its picture beats none
      // Only a public dashboard's image opens for whoever follows the URL (Slack fetches it without signing in).
      imageUrl: dashboard.visibility === 'public' ? this.deliveryAddresses.imageUrl(owner, dashboard.slug) : null,
      alerts: (await this.alertStates.of(dashboard)).map(alertJson),
      alert: null,
    };
  }
}

const alertJson = (a: AlertView) => ({ id: a.id, state: a.status, value: a.value, message: a.message, changed_at: a.changedAt?.toISOString() ?? null });
