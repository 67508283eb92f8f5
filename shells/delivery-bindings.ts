/**
 * The "delivery" section of the composition root (shells/container.ts calls it): SMTP, the webhook
 * poster under the outbound address policy, the sealers of webhook secrets and unsubscribe links, and
 * the in-process delivery queue's handler. The store and the queue come with the storage profile.
 */
import type { Container } from 'inversify';
import type { Settings } from '../application/ports/settings.js';
import { DeliveryAddresses, DeliverySecretSealer, MailSender, UnsubscribeSealer, WebhookPoster, type DeliveryJob } from '../application/ports/delivery-ports.js';
import type { SecretSealer } from '../application/ports/secret-sealer.js';
import { Deliver } from '../application/delivery/deliver.js';
import { AfterRefresh } from '../application/delivery/after-refresh.js';
import { RefreshFollowUps } from '../application/ports/refresh-follow-ups.js';
import { SecretBox } from '../adapters/crypto/secret-box.js';
import { HttpWebhookPoster } from '../adapters/http/http-webhook-poster.js';
import { MemoryDeliveryQueue } from '../adapters/jobs/memory-delivery-queue.js';
import { SmtpMailSender } from '../adapters/mail/smtp-mail-sender.js';
import { deliveryAddresses } from './presenters/delivery/delivery-addresses.js';
import type { Logger } from './logger.js';

export function bindDelivery(container: Container, settings: Settings, ownPorts: Set<number>, closers: Array<() => Promise<void>>): void {
  const mail = new SmtpMailSender(settings.smtpUrl, settings.mailFrom);
  closers.push(async () => mail.close());
  container.bind<MailSender>(MailSender).toConstantValue(mail);
  container.bind<WebhookPoster>(WebhookPoster).toConstantValue(new HttpWebhookPoster({ allowPrivate: settings.allowPrivateWebhooks, ownPorts: () => ownPorts }));
  // Keys of their own, derived from SECRET_KEY: a sealed webhook secret never opens as an unsubscribe token.
  container.bind<SecretSealer>(DeliverySecretSealer).toConstantValue(SecretBox.fromSettings(settings, 'delivery webhook secrets'));
  container.bind<SecretSealer>(UnsubscribeSealer).toConstantValue(SecretBox.fromSettings(settings, 'delivery unsubscribe links'));
  container.bind<DeliveryAddresses>(DeliveryAddresses).toConstantValue(deliveryAddresses(settings));
  container.bind<RefreshFollowUps>(RefreshFollowUps).to(AfterRefresh);
  // Deliveries queued in memory run in this process as they arrive: wiring their handler starts no timer.
  if (container.isBound(MemoryDeliveryQueue)) {
    container.get(MemoryDeliveryQueue).work(async (job) => void (await container.get(Deliver).run(job.subscriptionId, { final: true, alert: job.alert })));
  }
}

/** The pg-boss delivery handler: a failure that will be retried is thrown; the last one is recorded and logged. */
export function deliveryHandler(container: Container, logger: Logger) {
  const log = logger.child({ component: 'delivery' });
  return async (job: DeliveryJob, final: boolean): Promise<void> => {
    const outcome = await container.get(Deliver).run(job.subscriptionId, { final, alert: job.alert });
    if (outcome.status === 'failed') log.warn({ subscriptionId: job.subscriptionId, key: job.key, reason: outcome.error, paused: outcome.paused }, 'delivery failed after its retries');
  };
}
