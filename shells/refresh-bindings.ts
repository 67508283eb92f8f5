/**
 * The "refresh and connections" section of the composition root (shells/container.ts calls it), kept
 * in its own file so the root stays readable: warehouse connections, the `self` sandbox, spec mode,
 * the refresh queue and, on servers, its workers.
 */
import type { Container } from 'inversify';
import { DataSource } from 'typeorm';
import type { Settings } from '../application/ports/settings.js';
import { ConnectionStore } from '../application/ports/connection-store.js';
import { RefreshStateStore } from '../application/ports/refresh-state-store.js';
import { RefreshQueue } from '../application/ports/refresh-queue.js';
import { MetricsSandbox, SelfMetrics, Warehouse } from '../application/ports/warehouse.js';
import { SqlValidator } from '../application/ports/sql-validator.js';
import { PageRenderer } from '../application/ports/page-renderer.js';
import { SpecPublisher } from '../application/ports/spec-publisher.js';
import { SelfMetricsService } from '../application/connections/self-metrics.js';
import { SpecPublisherService } from '../application/refresh/spec-publisher-service.js';
import { RefreshDashboard } from '../application/refresh/refresh-dashboard.js';
import { RefreshScheduler } from '../application/refresh/refresh-scheduler.js';
import { RefreshOptions } from '../application/refresh/refresh-options.js';
import { SecretBox } from '../adapters/crypto/secret-box.js';
import { MemoryConnectionStore } from '../adapters/memory/memory-connection-store.js';
import { MemoryRefreshStateStore } from '../adapters/memory/memory-refresh-state-store.js';
import { TypeormConnectionStore } from '../adapters/postgres/typeorm-connection-store.js';
import { TypeormRefreshStateStore } from '../adapters/postgres/typeorm-refresh-state-store.js';
import { TypeormFileSweeper } from '../adapters/postgres/typeorm-file-sweeper.js';
import { FILE_SWEEP_GRACE_SECONDS, FileSweeper } from '../application/ports/file-sweeper.js';
import { PgWarehouse, SYSTEM_IDENTIFIER_SQL } from '../adapters/warehouse/pg-warehouse.js';
import { DnsWarehouseAddressPolicy, type ServiceDatabase } from '../adapters/warehouse/dns-address-policy.js';
import { WarehouseAddressPolicy } from '../application/ports/warehouse-address-policy.js';
import { PolicedWarehouse } from '../application/connections/policed-warehouse.js';
import { PgliteMetricsSandbox } from '../adapters/warehouse/pglite-metrics-sandbox.js';
import { PgBossRefreshQueue } from '../adapters/jobs/pg-boss-refresh-queue.js';
import { MemoryRefreshQueue } from '../adapters/jobs/memory-refresh-queue.js';
import { LibpgQueryValidator } from '../adapters/sql/libpg-query-validator.js';
import { LazyPageRenderer } from '../adapters/render/lazy-page-renderer.js';
import type { RefreshJob } from '../application/ports/refresh-queue.js';
import { noTelemetry, type Telemetry } from '../application/ports/telemetry.js';
import type { PromTelemetry } from '../adapters/metrics/prom-telemetry.js';
import type { Logger } from './logger.js';

export interface RefreshBuildOptions {
  role?: 'server' | 'cli';
  storage?: 'database' | 'memory';
  refreshWorkers?: boolean;
  logger?: Logger;
  telemetry?: Telemetry & Partial<Pick<PromTelemetry, 'observeQueueDepth'>>;
}

export async function bindRefreshAndConnections(
  container: Container,
  settings: Settings,
  /** The URL the service's data source opened (DATABASE_URL or the embedded database's); null in memory. */
  databaseUrl: string | null,
  options: RefreshBuildOptions,
  closers: Array<() => Promise<void>>,
): Promise<void> {
  container.bind<SqlValidator>(SqlValidator).to(LibpgQueryValidator);
  container.bind<PageRenderer>(PageRenderer).to(LazyPageRenderer);
  container.bind<RefreshOptions>(RefreshOptions).toConstantValue({
    budgetPerHour: settings.refreshBudgetPerHour,
    minimumIntervals: { free: settings.minRefreshIntervalFreeMinutes, pro: settings.minRefreshIntervalProMinutes },
  });
  const validator = container.get<SqlValidator>(SqlValidator);
  // No warehouse URL may lead to the server of the database the service stores everything in.
  const serviceDatabase: ServiceDatabase | null = databaseUrl ? { url: databaseUrl } : null;
  const addressPolicy = new DnsWarehouseAddressPolicy({ allowPrivate: settings.allowPrivateWarehouses, serviceDatabase });
  container.bind<WarehouseAddressPolicy>(WarehouseAddressPolicy).toConstantValue(addressPolicy);
  const pgWarehouse = new PgWarehouse(validator, databaseUrl ? serviceServerOf(container) : undefined);
  container.bind<Warehouse>(Warehouse).toConstantValue(new PolicedWarehouse(pgWarehouse, addressPolicy));
  const sandbox = new PgliteMetricsSandbox(validator);
  // Closed last, after the pools: a refresh still running when the shutdown grace ends then cannot
  // record a "failure" that was only the sandbox going away; its job was already handed back for a retry.
  closers.unshift(() => sandbox.close());
  container.bind<MetricsSandbox>(MetricsSandbox).toConstantValue(sandbox);
  container.bind<SelfMetrics>(SelfMetrics).to(SelfMetricsService);
  container.bind<SpecPublisher>(SpecPublisher).to(SpecPublisherService);

  const workers = options.refreshWorkers ?? options.role === 'server';
  const log = options.logger?.child({ component: 'refresh' });
  const telemetry = options.telemetry ?? noTelemetry;
  // Every job handler reports its own outcome: a failed run is recorded in its refresh status (what the
  // owner sees) and logged here (what the operator sees); a job that throws is logged and rethrown.
  const runRefresh = async (job: RefreshJob) => {
    const refresh = container.get(RefreshDashboard);
    try {
      const run = await refresh.run(job.dashboardId, job.trigger);
      if (!run) return;
      telemetry.refreshRun(run.trigger, run.outcome, run.durationMs / 1000);
      if (run.outcome !== 'success') log?.warn({ dashboardId: job.dashboardId, trigger: job.trigger, reason: run.error }, 'refresh run failed; the last good render stays live');
    } catch (err) {
      telemetry.refreshRun(job.trigger, 'error', 0);
      log?.error({ err, dashboardId: job.dashboardId, trigger: job.trigger }, 'refresh job failed before its run was recorded');
      throw err;
    }
  };
  const logged = (job: string, work: () => Promise<unknown>) => async () => {
    try {
      await work();
    } catch (err) {
      log?.error({ err, job }, `${job} failed`);
      throw err;
    }
  };
  if (!databaseUrl) {
    container.bind<ConnectionStore>(ConnectionStore).toConstantValue(new MemoryConnectionStore());
    container.bind<RefreshStateStore>(RefreshStateStore).toConstantValue(new MemoryRefreshStateStore());
    const queue = new MemoryRefreshQueue();
    container.bind<RefreshQueue>(RefreshQueue).toConstantValue(queue);
    container.bind(MemoryRefreshQueue).toConstantValue(queue);
    queue.work(runRefresh);
    if (workers) {
      const scheduler = container.get(RefreshScheduler);
      const tick = logged('refresh scheduler tick', () => scheduler.tick());
      const timer = setInterval(() => void tick().catch(() => undefined), 30_000).unref(); // logged by `logged`; the next tick tries again
      closers.push(async () => clearInterval(timer));
    }
    return;
  }

  const dataSource = container.get(DataSource);
  container.bind<ConnectionStore>(ConnectionStore).toConstantValue(new TypeormConnectionStore(dataSource, SecretBox.fromSettings(settings)));
  container.bind<RefreshStateStore>(RefreshStateStore).toConstantValue(new TypeormRefreshStateStore(dataSource));
  container.bind<FileSweeper>(FileSweeper).toConstantValue(new TypeormFileSweeper(dataSource));
  const queue = new PgBossRefreshQueue(databaseUrl, { worker: workers, logger: options.logger?.child({ component: 'pg-boss' }), stopTimeoutMs: settings.shutdownGraceSeconds * 1000 });
  options.telemetry?.observeQueueDepth?.(() => queue.depth());
  closers.push(() => queue.close());
  container.bind<RefreshQueue>(RefreshQueue).toConstantValue(queue);
  container.bind(PgBossRefreshQueue).toConstantValue(queue);
  if (workers) {
    const scheduler = container.get(RefreshScheduler);
    const sweeper = container.get<FileSweeper>(FileSweeper);
    await queue.work({
      refresh: runRefresh,
      tick: logged('refresh scheduler tick', () => scheduler.tick()),
      sweepFiles: logged('file sweep', () => sweeper.sweep(FILE_SWEEP_GRACE_SECONDS)),
    });
  }
}

/** The service database cluster's system identifier, asked once (again after a failed ask); null where it has none. */
function serviceServerOf(container: Container): () => Promise<string | null> {
  let known: string | null | undefined;
  return async () => {
    if (known !== undefined) return known;
    try {
      const rows: Array<{ id: string }> = await container.get(DataSource).query(SYSTEM_IDENTIFIER_SQL);
      known = rows[0]?.id ?? null;
    } catch {
      return null; // the service database is unreachable right now; its own requests fail and report that
    }
    return known;
  };
}
