import { inject, injectable } from 'inversify';
import { DomainError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import { UnsubscribeSealer } from '../ports/delivery-ports.js';
import type { SecretSealer } from '../ports/secret-sealer.js';
import { SubscriptionStore } from '../ports/subscription-store.js';

/** One text for a forged, garbled or used link, so none can be told apart. */
export const unsubscribeLinkInvalid = () => new DomainError('not_found', 'This unsubscribe link is not valid, or was already used.');

/**
 * One-click unsubscribe (RFC 8058). The link's token is the subscription id sealed by the service
 * (authenticated encryption), so it cannot be made up; using it deletes the email subscription, so it
 * works once and no later delivery is sent.
 */
@injectable()
export class Unsubscribe {
  constructor(
    @inject(UnsubscribeSealer) private readonly sealer: SecretSealer,
    @inject(SubscriptionStore) private readonly subscriptions: SubscriptionStore,
  ) {}

  /** The address that was unsubscribed. */
  async run(token: string): Promise<{ address: string }> {
    const id = this.idOf(token);
    const subscription = id ? await this.subscriptions.findById(id) : null;
    if (!subscription || subscription.channel !== 'email') throw unsubscribeLinkInvalid();
    if (!(await this.subscriptions.delete(subscription.id))) throw unsubscribeLinkInvalid();
    return { address: subscription.shownTarget };
  }

  private idOf(token: string): string | null {
    if (!/^[A-Za-z0-9_-]{20,400}$/.test(token)) return null;
    try {
      const id = this.sealer.open(Buffer.from(token, 'base64url').toString('utf8'));
      return isUuid(id) ? id : null;
    } catch {
      return null;
    }
  }
}
