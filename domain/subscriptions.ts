import { invalid } from './errors.js';

/** Where a subscription sends: an email address, a Slack incoming webhook or a generic (signed) webhook. */
export type SubscriptionChannel = 'email' | 'slack' | 'webhook';

export const SUBSCRIPTION_CHANNELS: readonly SubscriptionChannel[] = ['email', 'slack', 'webhook'];

/**
 * A delivery subscription of one dashboard. Webhook URLs and signing secrets are sealed at rest; the
 * record carries only what may be shown: the email address, or a webhook's scheme and host.
 */
export interface Subscription {
  id: string;
  dashboardId: string;
  channel: SubscriptionChannel;
  /** The email address, or `https://host` of a webhook (its path and query can hold the hook's own secret). */
  shownTarget: string;
  /** Whether it sends a share link of the dashboard (the owner's pick) instead of the canonical URL. */
  viaShareLink: boolean;
  /** Null: after each scheduled refresh. Else a 5-field cron read in `timezone`. */
  cron: string | null;
  timezone: string | null;
  nextRunAt: Date | null;
  paused: boolean;
  consecutiveFailures: number;
  lastError: string | null;
  lastFailureAt: Date | null;
  lastDeliveredAt: Date | null;
  createdBy: string | null;
  createdAt: Date;
}

export type SubscriptionStatus = 'active' | 'paused';

/** Failures in a row that pause a subscription until it is added again. */
export const PAUSE_AFTER_FAILURES = 10;
export const SUBSCRIPTIONS_PER_DASHBOARD = 50;
/** An error text is cut to this many characters before it is stored and shown. */
export const DELIVERY_ERROR_MAX_LENGTH = 300;

const EMAIL = /^[^\s@<>()[\]\\,;:"]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;

/** One plain address (no display name, no list), lower-cased domain; 254 characters at most. */
export function checkEmailAddress(text: string): string {
  const trimmed = text.trim();
  if (trimmed.length > 254 || !EMAIL.test(trimmed)) throw invalid(`"${trimmed.slice(0, 80)}" is not an email address such as ada@example.com`);
  const at = trimmed.lastIndexOf('@');
  return `${trimmed.slice(0, at)}@${trimmed.slice(at + 1).toLowerCase()}`;
}

/** An absolute http(s) URL without credentials. */
export function checkWebhookUrl(text: string, channel: 'slack' | 'webhook'): URL {
  let url: URL;
  try {
    url = new URL(text.trim());
  } catch {
    throw invalid(`the ${channel === 'slack' ? 'Slack webhook' : 'webhook'} must be an absolute URL such as https://example.com/hook`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid('a webhook URL must use https (or http)');
  if (url.username || url.password) throw invalid('a webhook URL must not carry a user name or password');
  if (url.href.length > 2000) throw invalid('a webhook URL must be at most 2000 characters');
  return url;
}

/** What lists show of a webhook: its scheme and host, since paths (Slack's) are themselves secrets. */
export const shownWebhook = (url: URL): string => `${url.protocol}//${url.host}`;

/** The text of an error as stored and shown: one line, cut short. */
export function deliveryErrorText(message: string): string {
  const line = message.replace(/\s+/g, ' ').trim();
  return line.length > DELIVERY_ERROR_MAX_LENGTH ? `${line.slice(0, DELIVERY_ERROR_MAX_LENGTH - 1)}…` : line;
}

export const subscriptionStatus = (s: Pick<Subscription, 'paused'>): SubscriptionStatus => (s.paused ? 'paused' : 'active');
