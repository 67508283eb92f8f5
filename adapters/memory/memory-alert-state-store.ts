import type { AlertState } from '../../domain/alerts.js';
import type { AlertStateStore, FailureStreak } from '../../application/ports/alert-state-store.js';

/** Alert states and failure streaks in Maps, copied in and out so callers never share objects with the store. */
export class MemoryAlertStateStore implements AlertStateStore {
  private readonly alerts = new Map<string, AlertState[]>();
  private readonly streaks = new Map<string, FailureStreak>();

  async states(dashboardId: string): Promise<AlertState[]> {
    return (this.alerts.get(dashboardId) ?? []).map((s) => ({ ...s })).sort((a, b) => (a.alertId < b.alertId ? -1 : a.alertId > b.alertId ? 1 : 0));
  }

  async replaceStates(dashboardId: string, states: AlertState[]): Promise<void> {
    this.alerts.set(dashboardId, states.map((s) => ({ ...s })));
  }

  async failureStreak(dashboardId: string): Promise<FailureStreak | null> {
    const streak = this.streaks.get(dashboardId);
    return streak ? { ...streak } : null;
  }

  async setFailureStreak(dashboardId: string, streak: FailureStreak | null): Promise<void> {
    if (streak === null) this.streaks.delete(dashboardId);
    else this.streaks.set(dashboardId, { ...streak });
  }
}
