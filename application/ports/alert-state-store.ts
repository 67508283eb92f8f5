import type { AlertState } from '../../domain/alerts.js';

/** A dashboard's refreshes failing in a row: told to the owner once when it starts, and once when it ends. */
export interface FailureStreak {
  since: Date;
  failures: number;
  lastError: string;
}

export const AlertStateStore = Symbol.for('AlertStateStore');
/** Per dashboard: each alert's state after the last refresh, and the refresh failure streak; they go with their dashboard. */
export interface AlertStateStore {
  /** Ordered by alert id. */
  states(dashboardId: string): Promise<AlertState[]>;
  /** Replaces every state of the dashboard (an alert no longer in the spec loses its state). */
  replaceStates(dashboardId: string, states: AlertState[]): Promise<void>;
  failureStreak(dashboardId: string): Promise<FailureStreak | null>;
  /** Null ends the streak. */
  setFailureStreak(dashboardId: string, streak: FailureStreak | null): Promise<void>;
}
