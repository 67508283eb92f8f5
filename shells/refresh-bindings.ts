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
import { TypeormConnectionStore } from '../adapters/typeorm/typeorm-connection-store.js';
import { TypeormRefreshStateStore } from '../adapters/typeorm/typeorm-refresh-state-store.js';
import { TypeormFileSweeper } from '../adapters/typeorm/typeorm-file-sweeper.js';
import { FILE_SWEEP_GRACE_SECONDS, FileSweeper } from '../application/ports/file-sweeper.js';
import { PgWarehouse } from '../adapters/warehouse/pg-warehouse.js';
import { DnsWarehouseAddressPolicy, type ServiceDatabase } from '../adapters/warehouse/dns-address-policy.js';
import { WarehouseAddressPolicy } from '../application/ports/warehouse-address-policy.js';
import { PolicedWarehouse } from '../application/connections/policed-warehouse.js';
import { PgliteMetricsSandbox } from '../adapters/warehouse/pglite-metrics-sandbox.js';
import { PgBossRefreshQueue } from '../adapters/jobs/pg-boss-refresh-queue.js';
import { MemoryRefreshQueue } from '../adapters/jobs/memory-refresh-queue.js';
import { LibpgQueryValidator } from '../adapters/sql/libpg-query-validator.js';
import { LazyPageRenderer } from '../adapters/render/lazy-page-renderer.js';

export interface RefreshBuildOptions {
  role?: 'server' | 'cli';
  storage?: 'database' | 'memory';
  refreshWorkers?: boolean;
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
  container.bind<RefreshOptions>(RefreshOptions).toConstantValue({ budgetPerHour: settings.refreshBudgetPerHour });
  const validator = container.get<SqlValidator>(SqlValidator);
  // No warehouse URL may name the database the service stores everything in (any database name on the
  // embedded server, which is the service's alone).
  const serviceDatabase: ServiceDatabase | null = databaseUrl ? { url: databaseUrl, anyDatabaseName: settings.databaseUrl === null } : null;
  const addressPolicy = new DnsWarehouseAddressPolicy({ allowPrivate: settings.allowPrivateWarehouses, serviceDatabase });
  container.bind<WarehouseAddressPolicy>(WarehouseAddressPolicy).toConstantValue(addressPolicy);
  container.bind<Warehouse>(Warehouse).toConstantValue(new PolicedWarehouse(new PgWarehouse(validator), addressPolicy));
  const sandbox = new PgliteMetricsSandbox(validator);
  closers.push(() => sandbox.close());
  container.bind<MetricsSandbox>(MetricsSandbox).toConstantValue(sandbox);
  container.bind<SelfMetrics>(SelfMetrics).to(SelfMetricsService);
  container.bind<SpecPublisher>(SpecPublisher).to(SpecPublisherService);

  const workers = options.refreshWorkers ?? options.role === 'server';
  if (!databaseUrl) {
    container.bind<ConnectionStore>(ConnectionStore).toConstantValue(new MemoryConnectionStore());
    container.bind<RefreshStateStore>(RefreshStateStore).toConstantValue(new MemoryRefreshStateStore());
    const queue = new MemoryRefreshQueue();
    container.bind<RefreshQueue>(RefreshQueue).toConstantValue(queue);
    container.bind(MemoryRefreshQueue).toConstantValue(queue);
    const refresh = container.get(RefreshDashboard);
    queue.work(async (job) => void (await refresh.run(job.dashboardId, job.trigger)));
    if (workers) {
      const scheduler = container.get(RefreshScheduler);
      const timer = setInterval(() => void scheduler.tick().catch(() => {}), 30_000).unref();
      closers.push(async () => clearInterval(timer));
    }
    return;
  }

  const dataSource = container.get(DataSource);
  container.bind<ConnectionStore>(ConnectionStore).toConstantValue(new TypeormConnectionStore(dataSource, SecretBox.fromSettings(settings)));
  container.bind<RefreshStateStore>(RefreshStateStore).toConstantValue(new TypeormRefreshStateStore(dataSource));
  container.bind<FileSweeper>(FileSweeper).toConstantValue(new TypeormFileSweeper(dataSource));
  const queue = new PgBossRefreshQueue(databaseUrl, { worker: workers });
  closers.push(() => queue.close());
  container.bind<RefreshQueue>(RefreshQueue).toConstantValue(queue);
  container.bind(PgBossRefreshQueue).toConstantValue(queue);
  if (workers) {
    const refresh = container.get(RefreshDashboard);
    const scheduler = container.get(RefreshScheduler);
    const sweeper = container.get<FileSweeper>(FileSweeper);
    await queue.work({
      refresh: async (job) => void (await refresh.run(job.dashboardId, job.trigger)),
      tick: async () => void (await scheduler.tick()),
      sweepFiles: async () => void (await sweeper.sweep(FILE_SWEEP_GRACE_SECONDS)),
    });
  }
}

