import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ListCacheOutcome, Telemetry, ToolOutcome, VerificationOutcome } from '../../application/ports/telemetry.js';

/** Database pool occupancy, read at scrape time. */
export interface PoolStats {
  inUse: number;
  waiting: number;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const REFRESH_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/**
 * Telemetry as Prometheus metrics (prom-client), on a registry of its own per container so several
 * servers in one process (tests) never share counters. Names are prefixed `dashpub_`; README
 * "Running in production" lists them.
 */
export class PromTelemetry implements Telemetry {
  readonly registry = new Registry();
  private readonly http: Counter<'surface' | 'status'>;
  private readonly httpSeconds: Histogram<'surface' | 'status'>;
  private readonly tools: Counter<'tool' | 'outcome'>;
  private readonly toolSeconds: Histogram<'tool' | 'outcome'>;
  private readonly refused: Counter<'limit'>;
  private readonly verifications: Counter<'outcome'>;
  private readonly listings: Counter<'outcome'>;
  private readonly refreshes: Counter<'trigger' | 'outcome'>;
  private readonly refreshSeconds: Histogram<'trigger' | 'outcome'>;
  private readonly served: Counter<'status'>;
  private queueDepthSource: (() => Promise<number | null>) | null = null;
  private poolSource: (() => PoolStats | null) | null = null;

  constructor(options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'dashpub_' });
    this.http = new Counter({ name: 'dashpub_http_requests_total', help: 'HTTP requests answered, by surface and status', labelNames: ['surface', 'status'], registers });
    this.httpSeconds = new Histogram({
      name: 'dashpub_http_request_duration_seconds',
      help: 'HTTP request latency, by surface and status',
      labelNames: ['surface', 'status'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.tools = new Counter({ name: 'dashpub_tool_calls_total', help: 'MCP tool calls, by tool and outcome (ok, refused, error)', labelNames: ['tool', 'outcome'], registers });
    this.toolSeconds = new Histogram({
      name: 'dashpub_tool_call_duration_seconds',
      help: 'MCP tool call latency, by tool and outcome',
      labelNames: ['tool', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers,
    });
    this.refused = new Counter({ name: 'dashpub_rate_limit_refusals_total', help: 'Requests refused by a rate limit, by limit', labelNames: ['limit'], registers });
    this.verifications = new Counter({
      name: 'dashpub_token_verifications_total',
      help: 'Bearer token checks on the MCP endpoint, by outcome (valid, invalid, missing, error)',
      labelNames: ['outcome'],
      registers,
    });
    this.listings = new Counter({
      name: 'dashpub_list_cache_total',
      help: 'list_dashboards answers, by outcome (hit: from memory; miss: built and remembered; bypass: built, the cache being off or the owner having no listing version)',
      labelNames: ['outcome'],
      registers,
    });
    this.refreshes = new Counter({ name: 'dashpub_refresh_runs_total', help: 'Dashboard refresh runs, by trigger and outcome', labelNames: ['trigger', 'outcome'], registers });
    this.refreshSeconds = new Histogram({
      name: 'dashpub_refresh_run_duration_seconds',
      help: 'Dashboard refresh run duration, by trigger and outcome',
      labelNames: ['trigger', 'outcome'],
      buckets: REFRESH_BUCKETS,
      registers,
    });
    this.served = new Counter({ name: 'dashpub_dashboards_served_total', help: 'Responses of the dashboards host, by status', labelNames: ['status'], registers });
    const self = this;
    new Gauge({
      name: 'dashpub_refresh_queue_depth',
      help: 'Refresh jobs waiting to run (all instances)',
      registers,
      async collect() {
        const depth = await self.queueDepthSource?.().catch(() => null); // unknown while the database is away: no sample rather than a wrong one
        if (depth !== null && depth !== undefined) this.set(depth);
      },
    });
    new Gauge({
      name: 'dashpub_db_pool_connections_in_use',
      help: 'Database pool connections checked out by this instance',
      registers,
      collect() {
        const stats = self.poolSource?.();
        if (stats) this.set(stats.inUse);
      },
    });
    new Gauge({
      name: 'dashpub_db_pool_waiting',
      help: 'Queries of this instance waiting for a database pool connection',
      registers,
      collect() {
        const stats = self.poolSource?.();
        if (stats) this.set(stats.waiting);
      },
    });
  }

  /** Where the queue depth and pool gauges read from (the composition root knows the adapters). */
  observeQueueDepth(source: () => Promise<number | null>): void {
    this.queueDepthSource = source;
  }

  observePool(source: () => PoolStats | null): void {
    this.poolSource = source;
  }

  /** The Prometheus text exposition and its content type. */
  async exposition(): Promise<{ contentType: string; text: string }> {
    return { contentType: this.registry.contentType, text: await this.registry.metrics() };
  }

  /** Label children by `surface|status`: prom-client hashes a label object on every call, this looks one up. */
  private readonly httpChildren = new Map<string, { count: { inc(): void }; latency: { observe(value: number): void } }>();
  private readonly servedChildren = new Map<number, { inc(): void }>();
  private readonly listingChildren = new Map<ListCacheOutcome, { inc(): void }>();
  private readonly verificationChildren = new Map<VerificationOutcome, { inc(): void }>();

  httpRequest(surface: string, status: number, seconds: number): void {
    const key = `${surface}|${status}`;
    let child = this.httpChildren.get(key);
    if (!child) {
      const labels = { surface, status: String(status) };
      child = { count: this.http.labels(labels), latency: this.httpSeconds.labels(labels) };
      this.httpChildren.set(key, child);
    }
    child.count.inc();
    child.latency.observe(seconds);
  }

  toolCall(tool: string, outcome: ToolOutcome, seconds: number): void {
    this.tools.inc({ tool, outcome });
    this.toolSeconds.observe({ tool, outcome }, seconds);
  }

  rateLimitRefused(limit: string): void {
    this.refused.inc({ limit });
  }

  tokenVerification(outcome: VerificationOutcome): void {
    // Once per MCP request: the label child is looked up once, not hashed from its labels every time.
    let child = this.verificationChildren.get(outcome);
    if (!child) this.verificationChildren.set(outcome, (child = this.verifications.labels({ outcome })));
    child.inc();
  }

  listCache(outcome: ListCacheOutcome): void {
    // One label child per outcome, looked up once: a hit is the hot path.
    let child = this.listingChildren.get(outcome);
    if (!child) this.listingChildren.set(outcome, (child = this.listings.labels({ outcome })));
    child.inc();
  }

  refreshRun(trigger: string, outcome: string, seconds: number): void {
    this.refreshes.inc({ trigger, outcome });
    this.refreshSeconds.observe({ trigger, outcome }, seconds);
  }

  dashboardServed(status: number): void {
    let child = this.servedChildren.get(status);
    if (!child) this.servedChildren.set(status, (child = this.served.labels({ status: String(status) })));
    child.inc();
  }
}
