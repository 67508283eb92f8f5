import type { MinimumIntervals } from '../../domain/refresh-interval.js';

export interface RefreshOptions {
  /** Runs per owner per hour that trigger_refresh may start (the refresh service's own budget). */
  budgetPerHour: number;
  /** The shortest gap between scheduled runs each plan allows, in minutes (MIN_REFRESH_INTERVAL_*). */
  minimumIntervals: MinimumIntervals;
}

/** Bound by the composition root from the settings (REFRESH_BUDGET_PER_HOUR); tests lower it. */
export const RefreshOptions = Symbol.for('RefreshOptions');
