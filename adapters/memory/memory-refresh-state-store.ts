import type { LiveRender, RefreshRun, RefreshSchedule, RefreshStateStore } from '../../application/ports/refresh-state-store.js';

const copy = <T extends object>(value: T): T => structuredClone(value);

/** In-process refresh state with the same compare-and-set claim as the database. */
export class MemoryRefreshStateStore implements RefreshStateStore {
  private readonly schedules = new Map<string, RefreshSchedule>();
  private readonly runs: RefreshRun[] = [];
  private readonly renders = new Map<string, LiveRender>();

  async setSchedule(schedule: RefreshSchedule): Promise<void> {
    this.schedules.set(schedule.dashboardId, copy(schedule));
  }
  async clearSchedule(dashboardId: string): Promise<void> {
    this.schedules.delete(dashboardId);
  }
  async getSchedule(dashboardId: string): Promise<RefreshSchedule | null> {
    const s = this.schedules.get(dashboardId);
    return s ? copy(s) : null;
  }
  async dueSchedules(now: Date, limit: number): Promise<RefreshSchedule[]> {
    return [...this.schedules.values()]
      .filter((s) => s.nextRunAt !== null && s.nextRunAt.getTime() <= now.getTime())
      .sort((a, b) => a.nextRunAt!.getTime() - b.nextRunAt!.getTime())
      .slice(0, limit)
      .map(copy);
  }
  async claimSchedule(dashboardId: string, expected: Date, next: Date | null): Promise<boolean> {
    const s = this.schedules.get(dashboardId);
    if (!s || s.nextRunAt?.getTime() !== expected.getTime()) return false;
    s.nextRunAt = next;
    return true;
  }
  async recordRun(run: RefreshRun): Promise<void> {
    this.runs.push(copy(run));
  }
  async lastRun(dashboardId: string): Promise<RefreshRun | null> {
    const mine = this.runs.filter((r) => r.dashboardId === dashboardId);
    return mine.length ? copy(mine.reduce((a, b) => (b.startedAt.getTime() >= a.startedAt.getTime() ? b : a))) : null;
  }
  async runsOf(dashboardIds: string[]): Promise<RefreshRun[]> {
    return this.runs
      .filter((r) => dashboardIds.includes(r.dashboardId))
      .sort((a, b) => a.startedAt.getTime() - b.startedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map(copy);
  }
  async setLiveRender(render: LiveRender): Promise<void> {
    this.renders.set(render.dashboardId, copy(render));
  }
  async liveRender(dashboardId: string): Promise<LiveRender | null> {
    const r = this.renders.get(dashboardId);
    return r ? copy(r) : null;
  }
}
