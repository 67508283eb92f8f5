import { inject, injectable } from 'inversify';
import { isRefreshable, parseDashboardSpec } from '../../domain/dashboard-spec.js';
import { DomainError, invalid } from '../../domain/errors.js';
import { validateSlug } from '../../domain/names.js';
import { refreshBudgetExhausted } from '../../domain/rate-limits.js';
import { ownerOf, triggerRefreshWorkspaceRefusal, type Target } from '../../domain/scope.js';
import { checkScheduleInterval } from '../../domain/refresh-interval.js';
import { AccountStore } from '../ports/account-store.js';
import { Clock } from '../ports/clock.js';
import { DashboardStore, type DashboardRecord } from '../ports/dashboard-store.js';
import { RefreshQueue, type RefreshPending } from '../ports/refresh-queue.js';
import { RateLimiter } from '../ports/rate-limiter.js';
import { RefreshStateStore, type RefreshRun, type RefreshSchedule } from '../ports/refresh-state-store.js';
import type { Principal } from '../ports/token-verifier.js';
import { ScopeResolver } from '../scope-resolver.js';
import { loadDashboard, noDashboardInAccount, type DashboardRef } from '../dashboard-lookup.js';
import { personalConnectionOnWorkspaceWarning } from '../connections/connection-access.js';
import { ConnectionStore } from '../ports/connection-store.js';
import { nextRuns, parseSchedule, shortestGapMinutes } from './cron.js';
import { RefreshOptions } from './refresh-options.js';

const HOUR_SECONDS = 3600;

export const noDashboardInWorkspace = (slug: string) => new DomainError('not_found', `No dashboard named "${slug}" in that workspace`);

/** set_refresh_schedule's input: a 5-field cron read in `timezone` (UTC when absent), or null to clear. */
export interface ScheduleCommand extends DashboardRef {
  schedule: string | null;
  timezone?: string;
}

/** The schedule now in force (null when cleared) and its next runs. */
export interface ScheduleSet {
  target: Target;
  slug: string;
  schedule: { cron: string; timezone: string; nextRuns: Date[] } | null;
  warnings: string[];
}

/** trigger_refresh's outcome: queued, or folded into a refresh already waiting (nothing new queued). */
export interface RefreshTriggered {
  target: Target;
  slug: string;
  queued: boolean;
}

/** get_refresh_status's answer: the schedule, the last run, and whether the live render is current. */
export interface RefreshStatus {
  target: Target;
  slug: string;
  refreshable: boolean;
  connection: string;
  schedule: RefreshSchedule | null;
  lastRun: RefreshRun | null;
  /** When the live render of the current version was made; null when there is none (or it is stale). */
  liveRenderedAt: Date | null;
  /** A refresh queued or running now, not yet recorded as a run. */
  pending: RefreshPending;
  warnings: string[];
}

/** set_refresh_schedule, trigger_refresh and get_refresh_status. */
@injectable()
export class ManageRefresh {
  constructor(
    @inject(ScopeResolver) private readonly scopes: ScopeResolver,
    @inject(DashboardStore) private readonly dashboards: DashboardStore,
    @inject(RefreshStateStore) private readonly state: RefreshStateStore,
    @inject(RefreshQueue) private readonly queue: RefreshQueue,
    @inject(RateLimiter) private readonly limiter: RateLimiter,
    @inject(ConnectionStore) private readonly connections: ConnectionStore,
    @inject(RefreshOptions) private readonly options: RefreshOptions,
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async setSchedule(principal: Principal, command: ScheduleCommand): Promise<ScheduleSet> {
    const target = await this.scopes.resolve(principal, command.workspace);
    const slug = validateSlug(command.slug);
    const dashboard = await this.dashboards.findDashboard(ownerOf(target), slug);
    if (!dashboard) throw noDashboardInWorkspace(slug);
    await this.requireRefreshable(dashboard);
    if (command.schedule === null) {
      await this.state.clearSchedule(dashboard.id);
      return { target, slug, schedule: null, warnings: [] };
    }
    const { cron, timezone } = parseSchedule(command.schedule, command.timezone);
    await this.checkInterval(principal, cron);
    const next = nextRuns(cron, timezone, this.clock.now(), 3);
    await this.state.setSchedule({ dashboardId: dashboard.id, cron, timezone, nextRunAt: next[0] ?? null });
    return { target, slug, schedule: { cron, timezone, nextRuns: next }, warnings: await this.warnings(target, dashboard) };
  }

  /** Personal dashboards only: `workspace` is not offered, and refused with its own text when sent anyway. */
  async trigger(principal: Principal, command: DashboardRef): Promise<RefreshTriggered> {
    const { workspace } = command;
    const workspaceNamed = typeof workspace === 'string' ? workspace.trim() !== '' : workspace !== undefined && workspace !== null;
    if (principal.lock.kind === 'workspace' || workspaceNamed) throw triggerRefreshWorkspaceRefusal();
    const target = await this.scopes.resolve(principal, undefined);
    if (target.kind !== 'personal') throw triggerRefreshWorkspaceRefusal();
    const slug = validateSlug(command.slug);
    const { dashboard } = await loadDashboard(this.dashboards, target, slug, noDashboardInAccount(slug), false);
    await this.requireRefreshable(dashboard);
    const owner = ownerOf(target);
    // Folded into a refresh already waiting: nothing new runs, so nothing counts against the budget.
    if (await this.queue.isWaiting(dashboard.id)) return { target, slug, queued: false };
    const allowed = await this.limiter
      .consume('refresh_budget', `${owner.kind}:${owner.id}`, this.options.budgetPerHour, HOUR_SECONDS)
      .catch(() => true); // fail open, as every limit; limiter adapters log their own failures
    if (!allowed) throw refreshBudgetExhausted();
    const queued = await this.queue.enqueue({ dashboardId: dashboard.id, trigger: 'manual' });
    return { target, slug, queued };
  }

  async status(principal: Principal, query: DashboardRef): Promise<RefreshStatus> {
    const target = await this.scopes.resolve(principal, query.workspace);
    const slug = validateSlug(query.slug);
    const { dashboard, current } = await loadDashboard(this.dashboards, target, slug, noDashboardInAccount(slug), true);
    const schedule = await this.state.getSchedule(dashboard.id);
    const live = await this.state.liveRender(dashboard.id);
    return {
      target,
      slug: dashboard.slug,
      refreshable: current.spec !== null && isRefreshable(parseDashboardSpec(current.spec)),
      connection: dashboard.connection,
      schedule,
      lastRun: await this.state.lastRun(dashboard.id),
      liveRenderedAt: live && live.versionId === dashboard.currentVersionId ? live.renderedAt : null,
      pending: await this.queue.pending(dashboard.id),
      warnings: await this.warnings(target, dashboard),
    };
  }

  /** The caller's plan sets the minimum: workspaces have no plan of their own (as for connections). */
  private async checkInterval(principal: Principal, cron: string): Promise<void> {
    const user = await this.accounts.findUserById(principal.userId);
    checkScheduleInterval(cron, shortestGapMinutes(cron, this.clock.now()), user?.plan ?? 'free', this.options.minimumIntervals);
  }

  private async requireRefreshable(dashboard: DashboardRecord): Promise<void> {
    const version = await this.dashboards.getVersion(dashboard.id, dashboard.currentVersionId);
    if (!version || version.spec === null || !isRefreshable(parseDashboardSpec(version.spec))) {
      throw invalid(
        `dashboard "${dashboard.slug}" is static: only a dashboard published from a spec with queries can refresh. ` +
          'Publish a spec with "queries" to make it refreshable.',
      );
    }
  }

  private async warnings(target: Target, dashboard: DashboardRecord): Promise<string[]> {
    if (target.kind !== 'workspace' || dashboard.connection === 'self') return [];
    const connection = await this.connections.findById(dashboard.connection);
    return connection && connection.workspaceId !== target.workspaceId ? [personalConnectionOnWorkspaceWarning(connection.label)] : [];
  }
}
