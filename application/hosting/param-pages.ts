import { inject, injectable } from 'inversify';
import { parseDashboardSpec, RENDERED_DATA, type Row } from '../../domain/dashboard-spec.js';
import { queryOptions, readParamValues, type ReadValues } from '../../domain/param-values.js';
import { storedParams, type ParamValues, type SpecParam } from '../../domain/spec-params.js';
import { ConnectionAccess } from '../connections/connection-access.js';
import { contentHash } from '../file-entries.js';
import { Clock } from '../ports/clock.js';
import { DashboardStore, type DashboardRecord, type Manifest } from '../ports/dashboard-store.js';
import { PageRenderer, type RenderedPage } from '../ports/page-renderer.js';
import { ParamRenderStore } from '../ports/param-render-store.js';
import { runSpecQueries } from '../refresh/run-queries.js';
import { HostingCatalog, type FileBytes } from './hosting-catalog.js';
import { HostingOptions } from './hosting-options.js';
import { withNotices } from './page-variants.js';

export const BUDGET_NOTICE = 'This dashboard has drawn as many new views as it may this minute; showing the default values. Try again in a minute.';
export const FAILED_NOTICE = 'These values could not be drawn; showing the default values.';
/** The key prefix under which a render's data.json text is kept beside its page, for images of the same values. */
const ROWS = 'rows:';
/** Parameter lists kept by version id (a version's spec never changes); whole specs are read only to draw. */
const PARAM_LISTS_KEPT = 500;

/** What is drawn from: the version being served and the URL's raw query string. */
export interface ParamDataRequest {
  dashboard: DashboardRecord;
  versionId: string;
  manifest: Manifest;
  pageUrl: string;
  query: string;
}

/** A draw for parameter values as an image uses it: its key, data.json text and page (when still kept). */
export interface ValuesDrawn {
  key: string;
  dataJson: string;
  page: string | undefined;
}

export interface ParamPageRequest extends ParamDataRequest {
  /** The stored page: the defaults' render. */
  page: FileBytes;
}

/**
 * A spec page for the parameter values in its URL: the stored render for the defaults, a cached render
 * for values drawn before (this version), or a new draw within the dashboard's per-minute budget. Past the
 * budget, or when the queries fail, the default render with a notice; never an error page.
 */
@injectable()
export class ParamPages {
  private readonly paramLists = new Map<string, SpecParam[]>();
  /** Draws in progress in this process, by dashboard, version and values: a shared URL opened by many at once draws once. */
  private readonly drawing = new Map<string, Promise<RenderedPage | 'spent' | null>>();

  constructor(
    @inject(DashboardStore) private readonly dashboards: DashboardStore,
    @inject(HostingCatalog) private readonly catalog: HostingCatalog,
    @inject(ParamRenderStore) private readonly renders: ParamRenderStore,
    @inject(ConnectionAccess) private readonly access: ConnectionAccess,
    @inject(PageRenderer) private readonly renderer: PageRenderer,
    @inject(Clock) private readonly clock: Clock,
    @inject(HostingOptions) private readonly options: HostingOptions,
  ) {}

  /** Null when the URL carries no parameter values for this page (the stored page answers as it is). */
  async page(request: ParamPageRequest): Promise<FileBytes | null> {
    const found = await this.read(request);
    if (!found) return null;
    const { read, key } = found;
    const fallback = (extra: string[]) => (read.notices.length + extra.length ? withNotices(request.page, [...read.notices, ...extra]) : null);
    if (read.defaults) return fallback([]);
    const cached = await this.renders.find(request.dashboard.id, request.versionId, key);
    if (cached) return withNotices({ body: Buffer.from(cached.html, 'utf8'), etag: `"${cached.sha256}"` }, read.notices);
    const drawn = await this.drawOnce(request, read.values, key);
    if (drawn === 'spent') return fallback([BUDGET_NOTICE]);
    if (drawn === null) return fallback([FAILED_NOTICE]);
    const body = Buffer.from(drawn.html, 'utf8');
    return withNotices({ body, etag: `"${contentHash(body)}"` }, read.notices);
  }

  /**
   * The data.json text and page drawn for the URL's values, and the key naming them, for an image: cached, or drawn
   * within the same budget. Null where the defaults' image stands: no values, the defaults, any value refused
   * (an image has no room for the notice), the budget spent or the queries failed.
   */
  async data(request: ParamDataRequest): Promise<ValuesDrawn | null> {
    const found = await this.read(request);
    if (!found || found.read.defaults || found.read.notices.length > 0) return null;
    const { key, read } = found;
    const { dashboard, versionId } = request;
    const [rows, page] = await Promise.all([this.renders.find(dashboard.id, versionId, ROWS + key), this.renders.find(dashboard.id, versionId, key)]);
    if (rows) return { key, dataJson: rows.html, page: page?.html };
    const drawn = await this.drawOnce(request, read.values, key);
    return drawn === 'spent' || drawn === null ? null : { key, dataJson: drawn.dataJson, page: drawn.html };
  }

  /** The values the URL gives and their cache key; null when it gives none or the version has no parameters. */
  private async read(request: ParamDataRequest): Promise<{ read: ReadValues; key: string } | null> {
    const pairs = [...new URLSearchParams(request.query)].filter(([key]) => key !== 'theme');
    if (pairs.length === 0) return null;
    const params = await this.params(request.dashboard.id, request.versionId);
    if (params.length === 0) return null;
    const stored = await this.storedData(request.manifest);
    const read = readParamValues(params, pairs, (param) => queryOptions(param, stored));
    // A refresh keeps the version but brings new rows: renders of the rows before it are not reused.
    return { read, key: `${request.manifest[RENDERED_DATA]?.sha256 ?? ''}:${read.key}` };
  }

  /** The draw of these values already in progress here, or a new one: every request waiting gets its outcome. */
  private drawOnce(request: ParamDataRequest, values: ParamValues, key: string): Promise<RenderedPage | 'spent' | null> {
    const id = `${request.dashboard.id}\n${request.versionId}\n${key}`;
    let drawn = this.drawing.get(id);
    if (drawn === undefined) {
      drawn = this.drawWithinBudget(request, values, key).finally(() => this.drawing.delete(id));
      this.drawing.set(id, drawn);
    }
    return drawn;
  }

  /** One draw counted in the dashboard's minute; the page and its rows are both kept, so pages and images share it. */
  private async drawWithinBudget(request: ParamDataRequest, values: ParamValues, key: string): Promise<RenderedPage | 'spent' | null> {
    const { dashboard, versionId } = request;
    const now = this.clock.now();
    const window = new Date(Math.floor(now.getTime() / 60_000) * 60_000);
    if (!(await this.renders.takeBudget(dashboard.id, window, this.options.paramRendersPerMinute))) return 'spent';
    const drawn = await this.draw(dashboard, versionId, values, request.pageUrl).catch(() => null);
    if (drawn === null) return null;
    const kept = this.options.paramRendersKept;
    await this.renders.put(dashboard.id, versionId, key, { html: drawn.html, sha256: contentHash(Buffer.from(drawn.html, 'utf8')) }, now, kept);
    await this.renders.put(dashboard.id, versionId, ROWS + key, { html: drawn.dataJson, sha256: contentHash(Buffer.from(drawn.dataJson, 'utf8')) }, now, kept);
    return drawn;
  }

  private async draw(dashboard: DashboardRecord, versionId: string, values: ParamValues, url: string): Promise<RenderedPage> {
    const version = await this.dashboards.getVersion(dashboard.id, versionId);
    if (!version?.spec) throw new Error(`version ${versionId} of dashboard ${dashboard.id} has no spec`);
    const spec = parseDashboardSpec(version.spec);
    const target = await this.access.forDashboard(dashboard.owner, dashboard.connection);
    const { data } = await runSpecQueries(spec, target, values);
    return this.renderer.render(spec, data, { fallbackTitle: dashboard.name, renderedAt: this.clock.now(), url, values });
  }

  private async params(dashboardId: string, versionId: string): Promise<SpecParam[]> {
    const known = this.paramLists.get(versionId);
    if (known) return known;
    const params = storedParams((await this.dashboards.getVersion(dashboardId, versionId))?.spec);
    if (this.paramLists.size >= PARAM_LISTS_KEPT) this.paramLists.delete(this.paramLists.keys().next().value!);
    this.paramLists.set(versionId, params);
    return params;
  }

  /** The rows of the defaults' render, where options listed by a query come from. */
  private async storedData(manifest: Manifest): Promise<Record<string, Row[]>> {
    const entry = Object.hasOwn(manifest, RENDERED_DATA) ? manifest[RENDERED_DATA] : undefined;
    const file = entry ? await this.catalog.file(entry) : null;
    if (!file) return {};
    try {
      return (JSON.parse(file.body.toString('utf8')) as { data?: Record<string, Row[]> }).data ?? {};
    } catch {
      return {};
    }
  }
}
