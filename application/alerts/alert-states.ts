import { inject, injectable } from 'inversify';
import { parseDashboardSpec, type Cell } from '../../domain/dashboard-spec.js';
import { AlertStateStore, type FailureStreak } from '../ports/alert-state-store.js';
import { DashboardStore, type DashboardRecord } from '../ports/dashboard-store.js';

/** An alert of the current spec with its state: "unchecked" until a refresh has checked it. */
export interface AlertView {
  id: string;
  message: string;
  status: 'ok' | 'firing' | 'unchecked';
  value: Cell;
  changedAt: Date | null;
  checkedAt: Date | null;
}

/**
 * What get_dashboard, the dashboard's page and deliveries show of alerts: the current version's alerts
 * joined with their stored states. Callers have already checked that the dashboard is the person's.
 */
@injectable()
export class AlertStates {
  constructor(
    @inject(DashboardStore) private readonly dashboards: DashboardStore,
    @inject(AlertStateStore) private readonly store: AlertStateStore,
  ) {}

  async of(dashboard: DashboardRecord): Promise<AlertView[]> {
    const version = await this.dashboards.getVersion(dashboard.id, dashboard.currentVersionId);
    const alerts = version?.spec ? (parseDashboardSpec(version.spec).alerts ?? []) : [];
    if (alerts.length === 0) return [];
    const states = new Map((await this.store.states(dashboard.id)).map((s) => [s.alertId, s]));
    return alerts.map((alert) => {
      const state = states.get(alert.id);
      return {
        id: alert.id,
        message: alert.message,
        status: state?.status ?? 'unchecked',
        value: state?.value ?? null,
        changedAt: state?.changedAt ?? null,
        checkedAt: state?.checkedAt ?? null,
      };
    });
  }

  /** The refreshes failing in a row now, or null. */
  failureStreak(dashboard: DashboardRecord): Promise<FailureStreak | null> {
    return this.store.failureStreak(dashboard.id);
  }
}
