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
import { RefreshQueue } from '../application/ports/job-queue.js';
import { MetricsSandbox, SelfMetrics, Warehouse } from '../application/ports/warehouse.js';
import { SqlValidator } from '../application/ports/sql-validator.js';
import { PageRenderer } from '../application/ports/page-renderer.js';
import { SpecPublisher } from '../application/ports/spec-publisher.js';
import { SelfMetricsService } from '../application/connections/self-metrics.js';
import { SpecPublisherService } from '../application/refresh/spec-publisher-service.js';
import { RefreshDashboard } from '../application/refresh/refresh-dashboard.js';
import { RefreshScheduler } from '../application/refresh/refresh-scheduler.js';
import { RefreshOptions, refreshOptionsFromEnv } from '../application/refresh/refresh-options.js';
import { SecretBox } from '../adapters/crypto/secret-box.js';
import { MemoryConnectionStore } from '../adapters/memory/memory-connection-store.js';
import { MemoryRefreshStateStore } from '../adapters/memory/memory-refresh-state-store.js';
import { TypeormConnectionStore } from '../adapters/typeorm/typeorm-connection-store.js';
import { TypeormRefreshStateStore } from '../adapters/typeorm/typeorm-refresh-state-store.js';
import { TypeormFileSweeper } from '../adapters/typeorm/typeorm-file-sweeper.js';
import { FILE_SWEEP_GRACE_SECONDS, FileSweeper } from '../application/ports/file-sweeper.js';
import { PgWarehouse } from '../adapters/warehouse/pg-warehouse.js';
import { DnsWarehouseAddressPolicy, type ServiceDatabase } from '../adapters/warehouse/dns-address-policy.js';
import { WarehouseAddressPolicy } from '../application/ports/network-policy.js';
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
  options: RefreshBuildOptions,
  closers: Array<() => Promise<void>>,
): Promise<void> {
  if (!container.isBound(SqlValidator)) container.bind<SqlValidator>(SqlValidator).to(LibpgQueryValidator);
  if (!container.isBound(PageRenderer)) container.bind<PageRenderer>(PageRenderer).to(LazyPageRenderer);
  container.bind<RefreshOptions>(RefreshOptions).toConstantValue(refreshOptionsFromEnv());
  const validator = container.get<SqlValidator>(SqlValidator);
  const addressPolicy = new DnsWarehouseAddressPolicy({ allowPrivate: settings.allowPrivateWarehouses, serviceDatabase: serviceDatabase(container, settings, options) });
  container.bind<WarehouseAddressPolicy>(WarehouseAddressPolicy).toConstantValue(addressPolicy);
  container.bind<Warehouse>(Warehouse).toConstantValue(new PolicedWarehouse(new PgWarehouse(validator), addressPolicy));
  const sandbox = new PgliteMetricsSandbox(validator);
  closers.push(() => sandbox.close());
  container.bind<MetricsSandbox>(MetricsSandbox).toConstantValue(sandbox);
  container.bind<SelfMetrics>(SelfMetrics).to(SelfMetricsService);
  container.bind<SpecPublisher>(SpecPublisher).to(SpecPublisherService);

  const workers = options.refreshWorkers ?? options.role === 'server';
  if (options.storage === 'memory') {
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
  const url = (dataSource.options as { url?: string }).url;
  if (!url) throw new Error('the refresh queue needs the database URL');
  const queue = new PgBossRefreshQueue(url, { worker: workers });
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

/**
 * The database this container stores everything in, which no warehouse URL may name: DATABASE_URL, or
 * the embedded database's loopback URL (the one the data source actually opened, attached or started).
 */
function serviceDatabase(container: Container, settings: Settings, options: RefreshBuildOptions): ServiceDatabase | null {
  if (options.storage === 'memory') return null;
  const url = (container.get(DataSource).options as { url?: string }).url;
  if (!url) throw new Error('the warehouse address policy needs the service database URL');
  return { url, anyDatabaseName: settings.databaseUrl === null };
}
