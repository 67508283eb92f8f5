import type { RefreshTrigger } from './refresh-state-store.js';

export interface RefreshJob {
  dashboardId: string;
  trigger: RefreshTrigger;
}

export type RefreshPending = 'queued' | 'running' | null;

export const RefreshQueue = Symbol.for('RefreshQueue');
/** The one refresh queue: at most one queued and one running job per dashboard. */
export interface RefreshQueue {
  /** False when a job for the dashboard is already waiting (the new one is folded into it). */
  enqueue(job: RefreshJob): Promise<boolean>;
  /** Whether a job for the dashboard is waiting to run (a new one would be folded into it). */
  isWaiting(dashboardId: string): Promise<boolean>;
  /** The dashboard's refresh in flight, if any: 'running' while a job runs, else 'queued' while one waits. */
  pending(dashboardId: string): Promise<RefreshPending>;
}
