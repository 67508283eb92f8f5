import { inject, injectable } from 'inversify';
import { nextAlertStates, type AlertState } from '../../domain/alerts.js';
import type { SpecAlert } from '../../domain/spec-alerts.js';
import { AlertStateStore } from '../ports/alert-state-store.js';
import { Clock } from '../ports/clock.js';
import type { DashboardRecord } from '../ports/dashboard-store.js';
import { DeliveryQueue, type AlertNotice } from '../ports/delivery-ports.js';
import type { RefreshResult } from '../ports/refresh-follow-ups.js';
import { SubscriptionStore } from '../ports/subscription-store.js';

/**
 * Checks a dashboard's alerts on the rows a refresh drew and queues one notification per flipped alert
 * to each active subscription of the dashboard (a pg-boss delivery job, so each goes out once).
 */
@injectable()
export class CheckAlerts {
  constructor(
    @inject(AlertStateStore) private readonly store: AlertStateStore,
    @inject(SubscriptionStore) private readonly subscriptions: SubscriptionStore,
    @inject(DeliveryQueue) private readonly queue: DeliveryQueue,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** Returns the alerts whose state flipped. */
  async afterRefresh(dashboard: DashboardRecord, runId: string, result: RefreshResult): Promise<AlertState[]> {
    const alerts = result.spec.alerts ?? [];
    const previous = await this.store.states(dashboard.id);
    if (alerts.length === 0 && previous.length === 0) return [];
    const { states, changed } = nextAlertStates(alerts, result.data, previous, this.clock.now());
    // Queued before the states are saved: a run that dies in between notifies twice rather than never.
    if (changed.length > 0) await this.notify(dashboard, runId, alerts, changed);
    await this.store.replaceStates(dashboard.id, states);
    return changed;
  }

  private async notify(dashboard: DashboardRecord, runId: string, alerts: SpecAlert[], changed: AlertState[]): Promise<void> {
    const active = (await this.subscriptions.list(dashboard.owner, dashboard.id)).filter((s) => !s.paused);
    for (const state of changed) {
      const message = alerts.find((a) => a.id === state.alertId)!.message;
      const alert: AlertNotice = { id: state.alertId, status: state.status, value: state.value, message, changedAt: state.changedAt.toISOString() };
      for (const subscription of active) {
        await this.queue.enqueue({ subscriptionId: subscription.id, key: `alert:${runId}:${state.alertId}`, alert });
      }
    }
  }
}
