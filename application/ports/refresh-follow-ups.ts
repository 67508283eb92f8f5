export const RefreshFollowUps = Symbol.for('RefreshFollowUps');
/** What runs after a successful scheduled refresh (which runs once across instances): deliveries. */
export interface RefreshFollowUps {
  afterScheduledRun(dashboardId: string, runId: string): Promise<unknown>;
}
