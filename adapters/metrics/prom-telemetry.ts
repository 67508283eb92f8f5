import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { ListCacheOutcome, Telemetry, ToolOutcome, VerificationOutcome } from '../../application/ports/telemetry.js';
import { RequestTally } from './request-tally.js';

/** Database pool occupancy, read at scrape time. */
export interface PoolStats {
  inUse: number;
  waiting: number;
}

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const REFRESH_BUCKETS = [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120];

/**
 * Telemetry as Prometheus metrics (prom-client), on a registry of its own per container so several
 * servers in one process (tests) never share counters; the three every HTTP request updates are counted by
 * a RequestTally instead and written after the registry's text. Names are prefixed `dashpub_`;
 * docs/operations.md, "Running in production", lists them.
 */
export class PromTelemetry implements Telemetry {
  readonly registry = new Registry();
  /** The per-request HTTP metrics, counted outside prom-client and written after its text on scrape. */
  private readonly requests = new RequestTally(LATENCY_BUCKETS);
  private readonly tools: Counter<'tool' | 'outcome'>;
  private readonly toolSeconds: Histogram<'tool' | 'outcome'>;
  private readonly refused: Counter<'limit'>;
  private readonly verifications: Counter<'outcome'>;
  private readonly listings: Counter<'outcome'>;
  private readonly refreshes: Counter<'trigger' | 'outcome'>;
  private readonly refreshSeconds: Histogram<'trigger' | 'outcome'>;
  private queueDepthSource: (() => Promise<number | null>) | null = null;
  private poolSource: (() => PoolStats | null) | null = null;

  constructor(options: { processMetrics?: boolean } = {}) {
    const registers = [this.registry];
    if (options.processMetrics ?? true) collectDefaultMetrics({ register: this.registry, prefix: 'dashpub_' });
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
    return { contentType: this.registry.contentType, text: `${await this.registry.metrics()}\n${this.requests.exposition()}\n` };
  }

  // Label children of the other frequent metrics, looked up by key: prom-client hashes a label object on every call.
  private readonly listingChildren = new Map<ListCacheOutcome, { inc(): void }>();
  private readonly verificationChildren = new Map<VerificationOutcome, { inc(): void }>();
  // Keyed by a registered tool's name (tool-registry.ts reports only those) and an outcome: a bounded set.
  private readonly toolChildren = new Map<string, { count: { inc(): void }; latency: { observe(value: number): void } }>();

  httpRequest(surface: string, status: number, seconds: number): void {
    this.requests.httpRequest(surface, status, seconds);
  }

  toolCall(tool: string, outcome: ToolOutcome, seconds: number): void {
    const child = childOf(this.toolChildren, `${tool}|${outcome}`, () => {
      const labels = { tool, outcome };
      return { count: this.tools.labels(labels), latency: this.toolSeconds.labels(labels) };
    });
    child.count.inc();
    child.latency.observe(seconds);
  }

  rateLimitRefused(limit: string): void {
    this.refused.inc({ limit });
  }

  tokenVerification(outcome: VerificationOutcome): void {
    childOf(this.verificationChildren, outcome, () => this.verifications.labels({ outcome })).inc();
  }

  listCache(outcome: ListCacheOutcome): void {
    childOf(this.listingChildren, outcome, () => this.listings.labels({ outcome })).inc();
  }

  refreshRun(trigger: string, outcome: string, seconds: number): void {
    this.refreshes.inc({ trigger, outcome });
    this.refreshSeconds.observe({ trigger, outcome }, seconds);
  }

  dashboardServed(status: number): void {
    this.requests.dashboardServed(status);
  }
}

/** The label child remembered under `key`, made by `make` the first time. */
function childOf<K, V>(children: Map<K, V>, key: K, make: () => V): V {
  let child = children.get(key);
  if (child === undefined) children.set(key, (child = make()));
  return child;
}
