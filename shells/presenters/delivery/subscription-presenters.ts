import type { ListedSubscription } from '../../../application/delivery/manage-subscriptions.js';
import type { DeliveryOutcome } from '../../../application/delivery/deliver.js';
import { subscriptionStatus } from '../../../domain/subscriptions.js';

/** A subscription as `--json` and the web app show it: never a webhook's path or its secret. */
export function subscriptionJson(listed: ListedSubscription) {
  const s = listed.subscription;
  return {
    id: s.id,
    slug: listed.slug,
    channel: s.channel,
    target: s.shownTarget,
    link: s.viaShareLink ? 'share link' : 'canonical',
    when: s.cron === null ? 'after each scheduled refresh' : `${s.cron} (${s.timezone})`,
    cron: s.cron,
    timezone: s.timezone,
    status: subscriptionStatus(s),
    consecutive_failures: s.consecutiveFailures,
    last_error: s.lastError,
    last_failure_at: s.lastFailureAt?.toISOString() ?? null,
    last_delivered_at: s.lastDeliveredAt?.toISOString() ?? null,
    created_at: s.createdAt.toISOString(),
  };
}

export function outcomeJson(outcome: DeliveryOutcome) {
  if (outcome.status === 'sent') return { status: 'sent' as const };
  if (outcome.status === 'skipped') return { status: 'skipped' as const, reason: outcome.reason };
  return { status: 'failed' as const, error: outcome.error, paused: outcome.paused };
}
