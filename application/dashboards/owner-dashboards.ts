import { inject, injectable } from 'inversify';
import { DomainError } from '../../domain/errors.js';
import type { Visibility } from '../../domain/metadata.js';
import { RATE_LIMITS, RATE_WINDOW_SECONDS, toolRateLimited } from '../../domain/rate-limits.js';
import { ownerOf, subdomainOf, triggerRefreshWorkspaceRefusal, type Target } from '../../domain/scope.js';
import { AccountStore } from '../ports/account-store.js';
import { Clock } from '../ports/clock.js';
import { DashboardCatalog, type CatalogRow, type DashboardKind } from '../ports/dashboard-catalog.js';
import { DashboardStore, type AliasRecord, type DashboardRecord } from '../ports/dashboard-store.js';
import { RateLimiter } from '../ports/rate-limiter.js';
import type { RefreshPending } from '../ports/refresh-queue.js';
import type { RefreshRun } from '../ports/refresh-state-store.js';
import type { Principal } from '../ports/token-verifier.js';
import { ViewCounter } from '../ports/view-counter.js';
import { nextRuns } from '../refresh/cron.js';
import { ManageRefresh } from '../refresh/manage-refresh.js';
import { AlertStates, type AlertView } from '../alerts/alert-states.js';
import type { FailureStreak } from '../ports/alert-state-store.js';
import { ScopeResolver } from '../scope-resolver.js';
import type { ImageAsk } from '../hosting/serve-image.js';
import { DashboardResources } from './dashboard-resources.js';
import { DeleteDashboard } from './delete-dashboard.js';
import { DashboardVersions, type VersionList } from './dashboard-versions.js';
import { GetDashboard, type DashboardFound } from './get-dashboard.js';
import { decodeCursor, encodeCursor } from './list-dashboards.js';
import { RenameDashboard } from './rename-dashboard.js';
import { UpdateDashboard } from './update-dashboard.js';

export const OWNER_PAGE_SIZE = 50;
export const VIEW_DAYS = 30;
const RECENT_RUNS = 10;
const NEXT_RUNS = 5;
const TAG_CHOICES = 200;

/** Whose dashboards a page shows: the person's own account or one of their workspaces. */
export interface OwnerChoice {
  /** The handle or workspace slug (the dashboards subdomain, and the path segment of these pages). */
  name: string;
  label: string;
  kind: 'personal' | 'workspace';
}

export interface ListFilters {
  search?: string;
  tag?: string;
  visibility?: Visibility;
  kind?: DashboardKind;
  cursor?: string;
}

export interface OwnerPage {
  owner: OwnerChoice;
  owners: OwnerChoice[];
  tags: string[];
  rows: CatalogRow[];
  nextCursor: string | null;
  viewsFromDay: string;
}

export interface DashboardDetail {
  owner: OwnerChoice;
  target: Target;
  dashboard: DashboardRecord;
  current: DashboardFound['current'];
  /** When the current version was made (a publish or a restore). */
  publishedAt: Date;
  /** The old slugs a rename left behind. */
  aliases: AliasRecord[];
  /** The snapshots, as list_dashboard_versions lists them. */
  versions: VersionList['versions'];
  /** The schedule in force (cron and zone, or null), its next runs, and get_refresh_status's warnings. */
  /** `pending`: a refresh queued or running, not yet among `runs`. */
  refresh: { schedule: string | null; timezone: string | null; nextRuns: Date[]; warnings: string[]; pending: RefreshPending };
  runs: RefreshRun[];
  dailyViews: Array<{ day: string; views: number }>;
  /** Set when the person may start a refresh here; else why not (the tool's own refusal). */
  refreshRefusal: string | null;
  /** The spec's alerts with their states, and the refreshes failing in a row now (null when the last run worked). */
  alerts: AlertView[];
  failureStreak: FailureStreak | null;
}

const dayOf = (date: Date) => date.toISOString().slice(0, 10);
const noSuchOwner = () => new DomainError('not_found', 'No such owner');

/**
 * The web app's dashboards pages for a signed-in person. Every action runs the MCP tools' own use cases
 * with the person acting as a legacy (unlocked) grant would: the `workspace` argument names the owner,
 * so the same lookups, membership checks, limits, refusal texts and versions apply. Owners the person
 * cannot reach answer the same not-found as a missing dashboard.
 */
@injectable()
export class OwnerDashboards {
  constructor(
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(ScopeResolver) private readonly scopes: ScopeResolver,
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(DashboardCatalog) private readonly catalog: DashboardCatalog,
    @inject(ViewCounter) private readonly views: ViewCounter,
    @inject(RateLimiter) private readonly limiter: RateLimiter,
    @inject(Clock) private readonly clock: Clock,
    @inject(GetDashboard) private readonly getDashboard: GetDashboard,
    @inject(UpdateDashboard) private readonly updateDashboard: UpdateDashboard,
    @inject(RenameDashboard) private readonly renameDashboard: RenameDashboard,
    @inject(DeleteDashboard) private readonly deleteDashboard: DeleteDashboard,
    @inject(DashboardVersions) private readonly versions: DashboardVersions,
    @inject(ManageRefresh) private readonly refreshTools: ManageRefresh,
    @inject(DashboardResources) private readonly resources: DashboardResources,
    @inject(AlertStates) private readonly alertStates: AlertStates,
  ) {}

  /** The person's own account first, then their workspaces by name. */
  async owners(userId: string): Promise<OwnerChoice[]> {
    const personal = await this.scopes.personal(userId);
    const memberships = await this.accounts.listMemberships(userId);
    return [
      { name: subdomainOf(personal), label: 'Personal account', kind: 'personal' as const },
      ...memberships
        .map((m) => ({ name: m.workspace.slug, label: m.workspace.name, kind: 'workspace' as const }))
        .sort((a, b) => a.label.localeCompare(b.label)),
    ];
  }

  async list(userId: string, ownerName: string, filters: ListFilters): Promise<OwnerPage> {
    const { target, owner } = await this.reach(userId, ownerName);
    const afterSlug = decodeCursor(filters.cursor);
    const viewsFromDay = this.viewsFromDay();
    const rows = await this.catalog.page(ownerOf(target), {
      afterSlug,
      limit: OWNER_PAGE_SIZE + 1,
      search: filters.search?.trim() || undefined,
      tag: filters.tag || undefined,
      visibility: filters.visibility,
      kind: filters.kind,
      viewsFromDay,
    });
    const page = rows.slice(0, OWNER_PAGE_SIZE);
    return {
      owner,
      owners: await this.owners(userId),
      tags: await this.catalog.tags(ownerOf(target), TAG_CHOICES),
      rows: page,
      nextCursor: rows.length > OWNER_PAGE_SIZE ? encodeCursor(page[page.length - 1].slug) : null,
      viewsFromDay,
    };
  }

  /** Everything the dashboard's page shows. A slug left behind by a rename answers its dashboard (see `dashboard.slug`). */
  async detail(userId: string, ownerName: string, slug: string): Promise<DashboardDetail> {
    const { principal, args, target, owner } = await this.reach(userId, ownerName);
    const { dashboard, current } = await this.getDashboard.execute(principal, { ...args, slug });
    const [aliases, versions, status, runs, daily, alerts, failureStreak] = await Promise.all([
      this.store.listAliases(dashboard.id),
      this.versions.list(principal, { ...args, slug: dashboard.slug }),
      this.refreshTools.status(principal, { ...args, slug: dashboard.slug }),
      this.catalog.recentRuns(dashboard.id, RECENT_RUNS),
      this.views.daily([dashboard.id], this.viewsFromDay()),
      this.alertStates.of(dashboard),
      this.alertStates.failureStreak(dashboard),
    ]);
    const perDay = new Map(daily.map((d) => [d.day, d.views]));
    const dailyViews = this.lastDays().map((day) => ({ day, views: perDay.get(day) ?? 0 }));
    const next = status.schedule ? nextRuns(status.schedule.cron, status.schedule.timezone, this.clock.now(), NEXT_RUNS) : [];
    return {
      owner,
      target,
      dashboard,
      current,
      publishedAt: current.createdAt,
      aliases,
      versions: versions.versions,
      refresh: { schedule: status.schedule?.cron ?? null, timezone: status.schedule?.timezone ?? null, nextRuns: next, warnings: status.warnings, pending: status.pending },
      runs,
      dailyViews,
      // The refusal trigger_refresh gives on a workspace target, word for word.
      refreshRefusal: target.kind === 'workspace' ? triggerRefreshWorkspaceRefusal().message : null,
      alerts,
      failureStreak,
    };
  }

  async update(userId: string, ownerName: string, slug: string, changes: { name: string; tags: string[]; visibility: string }) {
    const { principal, args } = await this.reach(userId, ownerName);
    return this.updateDashboard.execute(principal, { ...args, slug, ...changes });
  }

  async rename(userId: string, ownerName: string, slug: string, newSlug: string) {
    const { principal, args } = await this.reach(userId, ownerName);
    return this.renameDashboard.execute(principal, { ...args, slug, newSlug });
  }

  async remove(userId: string, ownerName: string, slug: string) {
    const { principal, args } = await this.reach(userId, ownerName);
    return this.deleteDashboard.execute(principal, { ...args, slug });
  }

  /** Names a version, or with an empty name removes its name (update_dashboard_version with null). */
  async nameVersion(userId: string, ownerName: string, slug: string, versionId: string, name: string) {
    const { principal, args } = await this.reach(userId, ownerName);
    return this.versions.name(principal, { ...args, slug, versionId, name: name.trim() === '' ? null : name });
  }

  async restoreVersion(userId: string, ownerName: string, slug: string, versionId: string) {
    const { principal, args } = await this.reach(userId, ownerName);
    return this.versions.restore(principal, { ...args, slug, versionId });
  }

  /** One version with one of its files (get_dashboard_version). */
  async version(userId: string, ownerName: string, slug: string, versionId: string, filename?: string) {
    const { principal, args } = await this.reach(userId, ownerName);
    return this.versions.get(principal, { ...args, slug, versionId, filename, includeBody: true });
  }

  async setSchedule(userId: string, ownerName: string, slug: string, cron: string, timezone: string) {
    const { principal, args } = await this.reach(userId, ownerName);
    const schedule = cron.trim() === '' ? null : cron;
    return this.refreshTools.setSchedule(principal, { ...args, slug, schedule, timezone: timezone.trim() || undefined });
  }

  /**
   * "Refresh now": trigger_refresh with its own per-user rate limit (the same counter the MCP tool
   * spends, fail-open like every limit) and the refresh service's per-owner budget inside the use case.
   */
  async refreshNow(userId: string, ownerName: string, slug: string) {
    const { principal, args } = await this.reach(userId, ownerName);
    const limit = RATE_LIMITS.trigger_refresh.points;
    const allowed = await this.limiter.consume('trigger_refresh', userId, limit, RATE_WINDOW_SECONDS).catch(() => true); // fail open; limiter adapters log their own failures
    if (!allowed) throw toolRateLimited('trigger_refresh');
    return this.refreshTools.trigger(principal, { ...args, slug });
  }

  /** The dashboard's image as its thumbnail: the same reach as every page here, then the resource read's check. */
  async thumbnail(userId: string, ownerName: string, slug: string, ask: ImageAsk) {
    const { principal } = await this.reach(userId, ownerName);
    return this.resources.image(principal, ownerName, slug, ask);
  }

  /** The owner a path names, if the person may act on it: their handle, or a workspace they belong to. */
  private async reach(userId: string, ownerName: string) {
    if (!/^[a-z0-9-]{1,64}$/.test(ownerName)) throw noSuchOwner();
    const principal = webPrincipal(userId);
    const personal = await this.scopes.personal(userId);
    const args: { workspace?: string } = ownerName === subdomainOf(personal) ? {} : { workspace: ownerName };
    let target: Target;
    try {
      target = await this.scopes.resolve(principal, args.workspace);
    } catch (error) {
      // Someone else's handle, an unknown workspace and a workspace the person is not in all read alike.
      if (error instanceof DomainError && (error.code === 'forbidden' || error.code === 'not_found')) throw noSuchOwner();
      throw error;
    }
    const owner: OwnerChoice =
      target.kind === 'personal'
        ? { name: target.handle, label: 'Personal account', kind: 'personal' }
        : { name: target.slug, label: (await this.accounts.findWorkspaceById(target.workspaceId))?.name ?? target.slug, kind: 'workspace' };
    return { principal, args, target, owner };
  }

  private viewsFromDay(): string {
    return this.lastDays()[0];
  }

  /** The last VIEW_DAYS UTC days, today included, oldest first. */
  private lastDays(): string[] {
    const today = Date.UTC(this.clock.now().getUTCFullYear(), this.clock.now().getUTCMonth(), this.clock.now().getUTCDate());
    return Array.from({ length: VIEW_DAYS }, (_, i) => dayOf(new Date(today - (VIEW_DAYS - 1 - i) * 86_400_000)));
  }
}

/** The signed-in person acting in the web app: no grant, no lock; the page names the owner. */
export function webPrincipal(userId: string): Principal {
  return { userId, grantId: 'web-app', lock: { kind: 'legacy' }, scope: 'mcp' };
}
