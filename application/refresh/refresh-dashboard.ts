import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { isRefreshable, parseDashboardSpec } from '../../domain/dashboard-spec.js';
import { AccountStore } from '../ports/account-store.js';
import { Clock } from '../ports/clock.js';
import { DashboardAddresses } from '../ports/dashboard-addresses.js';
import { DashboardStore, type DashboardRecord, type Manifest } from '../ports/dashboard-store.js';
import { PageRenderer } from '../ports/page-renderer.js';
import { RefreshStateStore, type RefreshRun, type RefreshTrigger } from '../ports/refresh-state-store.js';
import { ConnectionAccess } from '../connections/connection-access.js';
import { runSpecQueries } from './run-queries.js';
import { fileEntry } from '../file-entries.js';
import { renderSpecFiles } from './render-spec.js';
import { RefreshFollowUps, type RefreshResult } from '../ports/refresh-follow-ups.js';

/**
 * One refresh of one dashboard (the job handler): re-run the current version's queries on the
 * dashboard's connection, re-render, and replace the live render. It never makes a version. A failed
 * run leaves the last good render in place and records why.
 */
@injectable()
export class RefreshDashboard {
  constructor(
    @inject(DashboardStore) private readonly dashboards: DashboardStore,
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(RefreshStateStore) private readonly state: RefreshStateStore,
    @inject(ConnectionAccess) private readonly access: ConnectionAccess,
    @inject(PageRenderer) private readonly renderer: PageRenderer,
    @inject(DashboardAddresses) private readonly addresses: DashboardAddresses,
    @inject(Clock) private readonly clock: Clock,
    @inject(RefreshFollowUps) private readonly followUps: RefreshFollowUps,
  ) {}

  /** Null when the dashboard no longer exists (deleted while the job waited). */
  async run(dashboardId: string, trigger: RefreshTrigger): Promise<RefreshRun | null> {
    const dashboard = await this.dashboards.findDashboardById(dashboardId);
    if (!dashboard) return null;
    const startedAt = this.clock.now();
    const started = performance.now();
    let result: (RefreshResult & { rows: number }) | null = null;
    let error: string | null = null;
    try {
      result = await this.refresh(dashboard);
    } catch (err) {
      error = err instanceof Error ? err.message : String(err);
    }
    const run: RefreshRun = {
      id: randomUUID(),
      dashboardId,
      trigger,
      startedAt,
      durationMs: Math.round(performance.now() - started),
      outcome: error === null ? 'success' : 'failure',
      rows: result?.rows ?? 0,
      error,
    };
    await this.state.recordRun(run);
    await this.followUps.afterRun(dashboard, run, result);
    return run;
  }

  private async refresh(dashboard: DashboardRecord): Promise<RefreshResult & { rows: number }> {
    const version = await this.dashboards.getVersion(dashboard.id, dashboard.currentVersionId);
    if (!version || version.spec === null) throw new Error('the dashboard was published as a file, not a spec, so there is nothing to refresh');
    const spec = parseDashboardSpec(version.spec);
    if (!isRefreshable(spec)) throw new Error('the dashboard\'s spec has no queries, so there is nothing to refresh');
    const target = await this.access.forDashboard(dashboard.owner, dashboard.connection);
    const { data, rows } = await runSpecQueries(spec, target);
    const files = await renderSpecFiles(this.renderer, spec, data, {
      fallbackTitle: dashboard.name,
      renderedAt: this.clock.now(),
      url: this.addresses.pageUrl(await this.subdomain(dashboard), dashboard.slug),
    });
    const manifest: Manifest = {};
    for (const [name, bytes] of Object.entries(files)) manifest[name] = fileEntry(name, bytes);
    await this.dashboards.transaction(dashboard.owner, async (tx) => {
      for (const [name, bytes] of Object.entries(files)) await tx.putFile(manifest[name]!.sha256, bytes);
    });
    await this.state.setLiveRender({ dashboardId: dashboard.id, versionId: version.id, files: manifest, renderedAt: this.clock.now() });
    return { spec, data, rows };
  }

  private async subdomain(dashboard: DashboardRecord): Promise<string> {
    if (dashboard.owner.kind === 'user') return (await this.accounts.findUserById(dashboard.owner.id))?.handle ?? 'unknown';
    return (await this.accounts.findWorkspaceById(dashboard.owner.id))?.slug ?? 'unknown';
  }
}
