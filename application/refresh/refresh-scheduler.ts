import { inject, injectable } from 'inversify';
import { Clock } from '../ports/clock.js';
import { RefreshQueue } from '../ports/refresh-queue.js';
import { RefreshStateStore } from '../ports/refresh-state-store.js';
import { nextRuns } from './cron.js';

const BATCH = 200;

/**
 * The scheduler tick (a pg-boss cron job, once a minute across all instances). Each due schedule is
 * claimed with a compare-and-set on its next run time before its job is queued, so however many
 * instances tick at once, every scheduled run is queued exactly once.
 */
@injectable()
export class RefreshScheduler {
  constructor(
    @inject(RefreshStateStore) private readonly state: RefreshStateStore,
    @inject(RefreshQueue) private readonly queue: RefreshQueue,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** Returns the dashboards this tick queued. */
  async tick(now: Date = this.clock.now()): Promise<string[]> {
    const queued: string[] = [];
    for (const schedule of await this.state.dueSchedules(now, BATCH)) {
      let next: Date | null = null;
      try {
        next = nextRuns(schedule.cron, schedule.timezone, now, 1)[0] ?? null;
      } catch {
        next = null; // an expression that stopped parsing (library change) stops rather than loops
      }
      if (!(await this.state.claimSchedule(schedule.dashboardId, schedule.nextRunAt!, next))) continue;
      await this.queue.enqueue({ dashboardId: schedule.dashboardId, trigger: 'schedule' });
      queued.push(schedule.dashboardId);
    }
    return queued;
  }
}
