import { inject, injectable } from 'inversify';
import { DeliveryScheduler } from './delivery-scheduler.js';
import type { DashboardRecord } from '../ports/dashboard-store.js';
import type { RefreshFollowUps, RefreshResult } from '../ports/refresh-follow-ups.js';
import type { RefreshRun } from '../ports/refresh-state-store.js';
import { CheckAlerts } from '../alerts/check-alerts.js';
import { RefreshFailureNotices } from '../alerts/refresh-failure-notices.js';

/** The follow-ups of a recorded run: the failure streak, the alert checks, then a scheduled run's deliveries. */
@injectable()
export class AfterRefresh implements RefreshFollowUps {
  constructor(
    @inject(RefreshFailureNotices) private readonly failures: RefreshFailureNotices,
    @inject(CheckAlerts) private readonly alerts: CheckAlerts,
    @inject(DeliveryScheduler) private readonly deliveries: DeliveryScheduler,
  ) {}

  async afterRun(dashboard: DashboardRecord, run: RefreshRun, result: RefreshResult | null): Promise<void> {
    await this.failures.afterRun(dashboard, run);
    if (run.outcome !== 'success' || result === null) return;
    await this.alerts.afterRefresh(dashboard, run.id, result);
    // Subscriptions without a cron of their own go out after each successful scheduled run.
    if (run.trigger === 'schedule') await this.deliveries.afterScheduledRun(dashboard.id, run.id);
  }
}
