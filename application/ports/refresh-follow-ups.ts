import type { DashboardSpec, Row } from '../../domain/dashboard-spec.js';
import type { DashboardRecord } from './dashboard-store.js';
import type { RefreshRun } from './refresh-state-store.js';

/** What a successful run drew: the spec and the rows its queries returned. */
export interface RefreshResult {
  spec: DashboardSpec;
  data: Record<string, Row[]>;
}

export const RefreshFollowUps = Symbol.for('RefreshFollowUps');
/**
 * What runs after each recorded refresh run (a dashboard's runs never overlap, and each runs once across
 * instances): alert checks and failure notices after every run, deliveries after successful scheduled ones.
 */
export interface RefreshFollowUps {
  /** `result` is null for a failed run. */
  afterRun(dashboard: DashboardRecord, run: RefreshRun, result: RefreshResult | null): Promise<unknown>;
}
