import type { Manifest } from './dashboard-store.js';

export interface RefreshSchedule {
  dashboardId: string;
  /** 5-field cron. */
  cron: string;
  /** IANA time zone the cron is read in. */
  timezone: string;
  /** When the next scheduled run is due; the scheduler claims it by moving it on. */
  nextRunAt: Date | null;
}

export type RefreshTrigger = 'manual' | 'schedule' | 'publish';
export type RefreshOutcome = 'success' | 'failure';

export interface RefreshRun {
  id: string;
  dashboardId: string;
  trigger: RefreshTrigger;
  startedAt: Date;
  durationMs: number;
  outcome: RefreshOutcome;
  /** Rows the queries returned in total. */
  rows: number;
  error: string | null;
}

/** The render a refresh produced, served instead of the version's files while it matches the current version. */
export interface LiveRender {
  dashboardId: string;
  /** The version the render was made from: a later publish makes this render stale. */
  versionId: string;
  files: Manifest;
  renderedAt: Date;
}

export const RefreshStateStore = Symbol.for('RefreshStateStore');
export interface RefreshStateStore {
  setSchedule(schedule: RefreshSchedule): Promise<void>;
  clearSchedule(dashboardId: string): Promise<void>;
  getSchedule(dashboardId: string): Promise<RefreshSchedule | null>;
  /** Schedules whose next run is at or before `now`, oldest due first. */
  dueSchedules(now: Date, limit: number): Promise<RefreshSchedule[]>;
  /**
   * Compare-and-set: moves the next run from `expected` to `next` and answers true only for the one
   * caller that saw `expected`, so several instances ticking at once claim each due run exactly once.
   */
  claimSchedule(dashboardId: string, expected: Date, next: Date | null): Promise<boolean>;
  recordRun(run: RefreshRun): Promise<void>;
  lastRun(dashboardId: string): Promise<RefreshRun | null>;
  /** Runs of these dashboards, oldest first (the `self` metrics). */
  runsOf(dashboardIds: string[]): Promise<RefreshRun[]>;
  setLiveRender(render: LiveRender): Promise<void>;
  liveRender(dashboardId: string): Promise<LiveRender | null>;
}
