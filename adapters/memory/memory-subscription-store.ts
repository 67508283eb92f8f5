import type { OwnerRef } from '../../domain/scope.js';
import type { Subscription } from '../../domain/subscriptions.js';
import type { NewSubscription, StoredSubscription, SubscriptionStore } from '../../application/ports/subscription-store.js';

const publicPart = ({ owner: _o, sealedUrl: _u, sealedSecret: _s, sealedShareToken: _t, ...subscription }: StoredSubscription): Subscription => ({ ...subscription });
const byAge = (a: Subscription, b: Subscription) => a.createdAt.getTime() - b.createdAt.getTime() || a.id.localeCompare(b.id);

/** Delivery subscriptions in a Map; one process only. */
export class MemorySubscriptionStore implements SubscriptionStore {
  private readonly rows = new Map<string, StoredSubscription>();

  async insert(subscription: NewSubscription): Promise<void> {
    this.rows.set(subscription.id, { ...subscription });
  }

  async countForDashboard(dashboardId: string): Promise<number> {
    return [...this.rows.values()].filter((s) => s.dashboardId === dashboardId).length;
  }

  async list(owner: OwnerRef, dashboardId?: string): Promise<Subscription[]> {
    const mine = (s: StoredSubscription) => s.owner.kind === owner.kind && s.owner.id === owner.id && (dashboardId === undefined || s.dashboardId === dashboardId);
    return [...this.rows.values()].filter(mine).map(publicPart).sort(byAge);
  }

  async findById(id: string): Promise<StoredSubscription | null> {
    const row = this.rows.get(id);
    return row ? { ...row } : null;
  }

  async delete(id: string): Promise<boolean> {
    return this.rows.delete(id);
  }

  async afterRefresh(dashboardId: string): Promise<Subscription[]> {
    return [...this.rows.values()].filter((s) => s.dashboardId === dashboardId && s.cron === null && !s.paused).map(publicPart).sort(byAge);
  }

  async dueSchedules(now: Date, limit: number): Promise<Subscription[]> {
    return [...this.rows.values()]
      .filter((s) => s.nextRunAt !== null && s.nextRunAt.getTime() <= now.getTime() && !s.paused)
      .map(publicPart)
      .slice(0, limit);
  }

  async claimSchedule(id: string, expected: Date, next: Date | null): Promise<boolean> {
    const row = this.rows.get(id);
    if (!row || row.nextRunAt?.getTime() !== expected.getTime()) return false;
    row.nextRunAt = next;
    return true;
  }

  async recordSuccess(id: string, at: Date): Promise<void> {
    const row = this.rows.get(id);
    if (row) Object.assign(row, { consecutiveFailures: 0, paused: false, lastDeliveredAt: at });
  }

  async recordFailure(id: string, error: string, at: Date, pauseAfter: number): Promise<Subscription | null> {
    const row = this.rows.get(id);
    if (!row) return null;
    const failures = row.consecutiveFailures + 1;
    Object.assign(row, { consecutiveFailures: failures, lastError: error, lastFailureAt: at, paused: row.paused || failures >= pauseAfter });
    return publicPart(row);
  }

  async recordAttemptError(id: string, error: string, at: Date): Promise<void> {
    const row = this.rows.get(id);
    if (row) Object.assign(row, { lastError: error, lastFailureAt: at });
  }
}
