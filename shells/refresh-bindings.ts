/**
 * The "refresh and connections" section of the composition root (shells/container.ts calls it), kept
 * in its own file so the root stays readable: warehouse connections, the `self` sandbox, spec mode and
 * the refresh jobs. The stores and the queue come with the storage profile (shells/storage-profiles.ts);
 * the workers are started by the running service (shells/background-work.ts).
 */
import type { Container } from 'inversify';
import { DataSource } from 'typeorm';
import type { Settings } from '../application/ports/settings.js';
import { MetricsSandbox, SelfMetrics, Warehouse } from '../application/ports/warehouse.js';
import { SqlValidator } from '../application/ports/sql-validator.js';
import { PageRenderer } from '../application/ports/page-renderer.js';
import { ImageRenderer } from '../application/ports/image-renderer.js';
import { SpecPublisher } from '../application/ports/spec-publisher.js';
import { SelfMetricsService } from '../application/connections/self-metrics.js';
import { SpecPublisherService } from '../application/refresh/spec-publisher-service.js';
import { RefreshDashboard } from '../application/refresh/refresh-dashboard.js';
import { RefreshScheduler } from '../application/refresh/refresh-scheduler.js';
import { RefreshOptions } from '../application/refresh/refresh-options.js';
import { FILE_SWEEP_GRACE_SECONDS, FileSweeper } from '../application/ports/file-sweeper.js';
import { PgWarehouse, SYSTEM_IDENTIFIER_SQL } from '../adapters/warehouse/pg-warehouse.js';
import { DnsWarehouseAddressPolicy, type ServiceDatabase } from '../adapters/warehouse/dns-address-policy.js';
import { WarehouseAddressPolicy } from '../application/ports/warehouse-address-policy.js';
import { PolicedWarehouse } from '../application/connections/policed-warehouse.js';
import { PgliteMetricsSandbox } from '../adapters/warehouse/pglite-metrics-sandbox.js';
import { MemoryRefreshQueue } from '../adapters/jobs/memory-refresh-queue.js';
import { LibpgQueryValidator } from '../adapters/sql/libpg-query-validator.js';
import { LazyPageRenderer } from '../adapters/render/lazy-page-renderer.js';
import { ThreadedPageRenderer } from '../adapters/render/threaded-page-renderer.js';
import { PngImageRenderer } from '../adapters/render/png-image-renderer.js';
import { RefreshQueue, type RefreshJob } from '../application/ports/refresh-queue.js';
import type { Telemetry } from '../application/ports/telemetry.js';
import type { Logger } from './logger.js';
import { DeliveryScheduler } from '../application/delivery/delivery-scheduler.js';
import { deliveryHandler } from './delivery-bindings.js';
import type { DeliveryJob } from '../application/ports/delivery-ports.js';

export function bindRefreshAndConnections(
  container: Container,
  settings: Settings,
  /** The URL the service's data source opened (DATABASE_URL or the embedded database's); null in memory. */
  databaseUrl: string | null,
  options: { logger: Logger; telemetry: Telemetry },
  closers: Array<() => Promise<void>>,
): void {
  container.bind<SqlValidator>(SqlValidator).to(LibpgQueryValidator);
  if (settings.renderThreads > 0) {
    const renderer = new ThreadedPageRenderer(settings.renderThreads);
    container.bind<PageRenderer>(PageRenderer).toConstantValue(renderer);
    closers.push(() => renderer.close());
  } else {
    container.bind<PageRenderer>(PageRenderer).to(LazyPageRenderer);
  }
  container.bind<ImageRenderer>(ImageRenderer).to(PngImageRenderer);
  container.bind<RefreshOptions>(RefreshOptions).toConstantValue({
    budgetPerHour: settings.refreshBudgetPerHour,
    minimumIntervals: { free: settings.minRefreshIntervalFreeMinutes, pro: settings.minRefreshIntervalProMinutes },
  });
  const validator = container.get<SqlValidator>(SqlValidator);
  // No warehouse URL may lead to the server of the database the service stores everything in.
  const serviceDatabase: ServiceDatabase | null = databaseUrl ? { url: databaseUrl } : null;
  const addressPolicy = new DnsWarehouseAddressPolicy({ allowPrivate: settings.allowPrivateWarehouses, serviceDatabase });
  container.bind<WarehouseAddressPolicy>(WarehouseAddressPolicy).toConstantValue(addressPolicy);
  const caps = { cellBytes: settings.queryMaxCellBytes, resultBytes: settings.queryMaxResultBytes };
  const pgWarehouse = new PgWarehouse(validator, databaseUrl ? serviceServerOf(container) : undefined, caps);
  container.bind<Warehouse>(Warehouse).toConstantValue(new PolicedWarehouse(pgWarehouse, addressPolicy));
  const sandbox = new PgliteMetricsSandbox(validator, { sandboxes: settings.selfSandboxes, timeoutMs: settings.selfQueryTimeoutSeconds * 1000, caps });
  // Closed last, after the pools: a refresh still running when the shutdown grace ends then cannot
  // record a "failure" that was only the sandbox going away; its job was already handed back for a retry.
  closers.unshift(() => sandbox.close());
  container.bind<MetricsSandbox>(MetricsSandbox).toConstantValue(sandbox);
  container.bind<SelfMetrics>(SelfMetrics).to(SelfMetricsService);
  container.bind<SpecPublisher>(SpecPublisher).to(SpecPublisherService);
  // Jobs queued in memory run in this process as they arrive: wiring their handler starts no timer.
  const queue = container.get<RefreshQueue>(RefreshQueue);
  if (queue instanceof MemoryRefreshQueue) queue.work(refreshJobs(container, options.logger, options.telemetry).refresh);
}

export interface RefreshJobs {
  refresh(job: RefreshJob): Promise<void>;
  tick(): Promise<void>;
  sweepFiles(): Promise<void>;
  deliver(job: DeliveryJob, final: boolean): Promise<void>;
}

/**
 * The refresh jobs' handlers. Each reports its own outcome: a failed run is recorded in its refresh status
 * (what the owner sees) and logged here (what the operator sees); a job that throws is logged and rethrown.
 */
export function refreshJobs(container: Container, logger: Logger, telemetry: Telemetry): RefreshJobs {
  const log = logger.child({ component: 'refresh' });
  const logged = (job: string, work: () => Promise<unknown>) => async () => {
    try {
      await work();
    } catch (err) {
      log.error({ err, job }, `${job} failed`);
      throw err;
    }
  };
  return {
    async refresh(job) {
      try {
        const run = await container.get(RefreshDashboard).run(job.dashboardId, job.trigger);
        if (!run) return;
        telemetry.refreshRun(run.trigger, run.outcome, run.durationMs / 1000);
        if (run.outcome !== 'success') log.warn({ dashboardId: job.dashboardId, trigger: job.trigger, reason: run.error }, 'refresh run failed; the last good render stays live');
      } catch (err) {
        telemetry.refreshRun(job.trigger, 'error', 0);
        log.error({ err, dashboardId: job.dashboardId, trigger: job.trigger }, 'refresh job failed before its run was recorded');
        throw err;
      }
    },
    tick: logged('refresh scheduler tick', async () => {
      await container.get(RefreshScheduler).tick();
      await container.get(DeliveryScheduler).tick();
    }),
    deliver: deliveryHandler(container, logger),
    sweepFiles: logged('file sweep', () => container.get<FileSweeper>(FileSweeper).sweep(FILE_SWEEP_GRACE_SECONDS)),
  };
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
