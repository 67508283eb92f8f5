import type { Cell } from '../../domain/dashboard-spec.js';

/** An alert that flipped, as its notification's job carries it (plain JSON, as jobs are stored). */
export interface AlertNotice {
  id: string;
  status: 'ok' | 'firing';
  value: Cell;
  message: string;
  /** ISO 8601. */
  changedAt: string;
}

/** One delivery of one subscription; `key` names the occasion (a refresh run, a cron slot, a test, an alert), so it is sent once. */
export interface DeliveryJob {
  subscriptionId: string;
  key: string;
  /** Set on an alert's notification; a plain delivery otherwise. */
  alert?: AlertNotice;
}

export const DeliveryQueue = Symbol.for('DeliveryQueue');
/** Deliveries as jobs: each is taken by one instance and retried with backoff when it throws. */
export interface DeliveryQueue {
  enqueue(job: DeliveryJob): Promise<void>;
}

/** An email as the sender hands it over; the image (a PNG) is embedded by `cid` and attached when given. */
export interface OutgoingMail {
  to: string;
  subject: string;
  text: string;
  html: string;
  image: { cid: string; filename: string; content: Buffer } | null;
  /** RFC 8058: the one-click unsubscribe URL, sent as List-Unsubscribe with List-Unsubscribe-Post. */
  unsubscribeUrl: string | null;
}

export const MailSender = Symbol.for('MailSender');
/** SMTP (SMTP_URL, MAIL_FROM); `enabled` is false while they are unset, and `send` then refuses. */
export interface MailSender {
  readonly enabled: boolean;
  send(mail: OutgoingMail): Promise<void>;
}

export const WebhookPoster = Symbol.for('WebhookPoster');
/**
 * Outbound webhook POSTs under the outbound address policy: asked when a subscription is added and again
 * on every send (inside the connection's own lookup). A 5-second timeout, no redirects followed.
 */
export interface WebhookPoster {
  /** Throws DomainError('invalid_argument') when the URL's host is not one the service sends to. */
  check(url: string): Promise<void>;
  /** Throws with a short reason unless the receiver answered 2xx. */
  post(url: string, body: string, headers: Record<string, string>): Promise<void>;
}

export const DeliveryAddresses = Symbol.for('DeliveryAddresses');
/** URLs the shell serves for delivery: the one-click unsubscribe link and the dashboard's Deliver section. */
export interface DeliveryAddresses {
  unsubscribeUrl(token: string): string;
  /** The web app's page of the dashboard `slug` of `owner` (a handle or workspace slug), at its Deliver section. */
  deliverSectionUrl(owner: string, slug: string): string;
  /** A share link's URL on the dashboards host of `owner`. */
  shareLinkUrl(owner: string, token: string): string;
  /** The web app's page of the dashboard at its Refresh section, where failures and alert states show. */
  refreshSectionUrl(owner: string, slug: string): string;
  /** The dashboard's PNG on its dashboards host (`/_image/<slug>.png`). */
  imageUrl(owner: string, slug: string): string;
}

/** A SecretSealer (application/ports/secret-sealer.ts) for webhook URLs and signing secrets at rest. */
export const DeliverySecretSealer = Symbol.for('DeliverySecretSealer');
/** A SecretSealer whose sealed subscription ids are the unsubscribe links' tokens (they cannot be forged). */
export const UnsubscribeSealer = Symbol.for('UnsubscribeSealer');
