import { inject, injectable } from 'inversify';
import type { OwnerRef } from '../../domain/scope.js';
import type { BindValue } from '../../domain/spec-params.js';
import { DashboardStore, type DashboardRecord } from '../ports/dashboard-store.js';
import { RefreshStateStore } from '../ports/refresh-state-store.js';
import { ViewCounter } from '../ports/view-counter.js';
import {
  MetricsSandbox,
  type MetricsTables,
  type QueryResult,
  type RunLimits,
  type SelfMetrics,
  type SqlTarget,
  type TableInfo,
} from '../ports/warehouse.js';

const col = (name: string, type: string) => ({ name, type, nullable: false });

/** What introspect_schema shows for `self`: the views, without any data. */
export const SELF_VIEWS: TableInfo[] = [
  {
    schema: 'public',
    name: 'dashboards',
    kind: 'view',
    columns: [col('slug', 'text'), col('name', 'text'), col('visibility', 'text'), col('created_at', 'timestamp with time zone'), col('updated_at', 'timestamp with time zone')],
  },
  { schema: 'public', name: 'daily_views', kind: 'view', columns: [col('slug', 'text'), col('day', 'date'), col('views', 'bigint')] },
  { schema: 'public', name: 'publishes', kind: 'view', columns: [col('slug', 'text'), col('day', 'date'), col('count', 'integer')] },
  {
    schema: 'public',
    name: 'refresh_runs',
    kind: 'view',
    columns: [col('slug', 'text'), col('started_at', 'timestamp with time zone'), col('outcome', 'text'), col('duration_ms', 'integer'), col('rows', 'integer')],
  },
];

const PAGE = 100;

/**
 * The built-in `self` connection: the owner's own dashboards and their aggregated counts (views per
 * day, publishes per day, refresh runs), never who viewed. Rows are gathered here, narrowed to one
 * owner, and the SQL runs in the sandbox where nothing else exists.
 */
@injectable()
export class SelfMetricsService implements SelfMetrics {
  constructor(
    @inject(DashboardStore) private readonly dashboards: DashboardStore,
    @inject(ViewCounter) private readonly views: ViewCounter,
    @inject(RefreshStateStore) private readonly refresh: RefreshStateStore,
    @inject(MetricsSandbox) private readonly sandbox: MetricsSandbox,
  ) {}

  open(owner: OwnerRef): SqlTarget {
    const key = `${owner.kind}:${owner.id}`;
    // Read once per target (one tool call, or one refresh run): its queries all see the same rows.
    let rows: Promise<MetricsTables> | undefined;
    const tables = () => (rows ??= this.tables(owner));
    return {
      run: async (sql: string, limits?: Partial<RunLimits>, values?: readonly BindValue[]): Promise<QueryResult> =>
        this.sandbox.run(key, await tables(), sql, limits, values),
      explain: async (sql: string, values?: readonly BindValue[]) => this.sandbox.explain(key, await tables(), sql, values),
      introspect: async () => SELF_VIEWS,
    };
  }

  async tables(owner: OwnerRef): Promise<MetricsTables> {
    const all: DashboardRecord[] = [];
    for (let afterSlug: string | undefined; ; ) {
      const page = await this.dashboards.list(owner, { limit: PAGE, afterSlug });
      all.push(...page);
      if (page.length < PAGE) break;
      afterSlug = page[page.length - 1]!.slug;
    }
    const slugOf = new Map(all.map((d) => [d.id, d.slug]));
    const ids = [...slugOf.keys()];
    // One read for every dashboard's publishes (not a read of each one's versions, specs and all).
    // Three independent reads, sent together.
    const [publishDays, daily, runs] = await Promise.all([
      this.dashboards.publishDays(owner),
      ids.length ? this.views.daily(ids) : [],
      ids.length ? this.refresh.runsOf(ids) : [],
    ]);
    const publishes: MetricsTables['publishes'] = publishDays
      .filter((p) => slugOf.has(p.dashboardId))
      .map((p) => ({ slug: slugOf.get(p.dashboardId)!, day: p.day, count: p.count }));
    return {
      dashboards: all.map((d) => ({
        slug: d.slug,
        name: d.name,
        visibility: d.visibility,
        created_at: d.createdAt.toISOString(),
        updated_at: d.updatedAt.toISOString(),
      })),
      daily_views: daily.filter((v) => slugOf.has(v.dashboardId)).map((v) => ({ slug: slugOf.get(v.dashboardId)!, day: v.day, views: v.views })),
      publishes,
      refresh_runs: runs
        .filter((r) => slugOf.has(r.dashboardId))
        .map((r) => ({ slug: slugOf.get(r.dashboardId)!, started_at: r.startedAt.toISOString(), outcome: r.outcome, duration_ms: r.durationMs, rows: r.rows })),
    };
  }
}
