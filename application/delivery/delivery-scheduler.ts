import { inject, injectable } from 'inversify';
import { Clock } from '../ports/clock.js';
import { DeliveryQueue } from '../ports/delivery-ports.js';
import { SubscriptionStore } from '../ports/subscription-store.js';
import { nextRuns } from '../refresh/cron.js';

const BATCH = 200;

/**
 * Turns occasions into delivery jobs. After a scheduled refresh (which runs once across instances) each of
 * the dashboard's subscriptions without a cron of its own gets one job; on the scheduler tick each due
 * subscription cron is claimed with a compare-and-set before its job is queued, so it is queued once.
 */
@injectable()
export class DeliveryScheduler {
  constructor(
    @inject(SubscriptionStore) private readonly subscriptions: SubscriptionStore,
    @inject(DeliveryQueue) private readonly queue: DeliveryQueue,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** Returns the subscriptions queued. */
  async afterScheduledRun(dashboardId: string, runId: string): Promise<string[]> {
    const queued: string[] = [];
    for (const subscription of await this.subscriptions.afterRefresh(dashboardId)) {
      await this.queue.enqueue({ subscriptionId: subscription.id, key: `refresh:${runId}` });
      queued.push(subscription.id);
    }
    return queued;
  }

  /** Returns the subscriptions queued. */
  async tick(now: Date = this.clock.now()): Promise<string[]> {
    const queued: string[] = [];
    for (const subscription of await this.subscriptions.dueSchedules(now, BATCH)) {
      let next: Date | null = null;
      try {
        next = nextRuns(subscription.cron!, subscription.timezone ?? 'UTC', now, 1)[0] ?? null;
      } catch {
        next = null; // an expression that stopped parsing stops rather than loops
      }
      if (!(await this.subscriptions.claimSchedule(subscription.id, subscription.nextRunAt!, next))) continue;
      await this.queue.enqueue({ subscriptionId: subscription.id, key: `cron:${subscription.nextRunAt!.toISOString()}` });
      queued.push(subscription.id);
    }
    return queued;
  }
}
