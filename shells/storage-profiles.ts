/**
 * One inversify ContainerModule per storage profile, picked once by the composition root
 * (shells/container.ts): `memory` (application tests), `postgres` (DATABASE_URL) and `embedded` (the
 * PGlite database under DATA_DIR). A profile binds every port whose adapter depends on where the data
 * lives; the rest of the root binds the same things whichever profile it loaded.
 */
import { ContainerModule } from 'inversify';
import { DataSource } from 'typeorm';
import type { Settings } from '../application/ports/settings.js';
import { AccountStore } from '../application/ports/account-store.js';
import { ConnectionStore } from '../application/ports/connection-store.js';
import { DashboardCatalog } from '../application/ports/dashboard-catalog.js';
import { DashboardStore } from '../application/ports/dashboard-store.js';
import { FileSweeper } from '../application/ports/file-sweeper.js';
import { ListingVersions, NO_LISTING_VERSIONS } from '../application/ports/listing-versions.js';
import type { OAuthStore } from '../application/ports/oauth-store.js';
import { RefreshQueue } from '../application/ports/refresh-queue.js';
import { RefreshStateStore } from '../application/ports/refresh-state-store.js';
import { IN_PROCESS_ONLY, TokenInvalidations, UNHEARD } from '../application/ports/token-invalidations.js';
import { ViewCounter } from '../application/ports/view-counter.js';
import { ViewerTickets } from '../application/ports/viewer-tickets.js';
import { ShareLinkStore } from '../application/ports/share-link-store.js';
import { ParamRenderStore } from '../application/ports/param-render-store.js';
import { EmbedStore } from '../application/ports/embed-store.js';
import { SubscriptionStore } from '../application/ports/subscription-store.js';
import { DeliveryQueue } from '../application/ports/delivery-ports.js';
import { AlertStateStore } from '../application/ports/alert-state-store.js';
import { MemoryAlertStateStore } from '../adapters/memory/memory-alert-state-store.js';
import { PostgresAlertStateStore } from '../adapters/postgres/postgres-alert-state-store.js';
import { MemorySubscriptionStore } from '../adapters/memory/memory-subscription-store.js';
import { PostgresSubscriptionStore } from '../adapters/postgres/postgres-subscription-store.js';
import { MemoryDeliveryQueue } from '../adapters/jobs/memory-delivery-queue.js';
import { PgBossDeliveryQueue } from '../adapters/jobs/pg-boss-delivery-queue.js';
import { SecretBox } from '../adapters/crypto/secret-box.js';
import { MemoryRefreshQueue } from '../adapters/jobs/memory-refresh-queue.js';
import { PgBossRefreshQueue } from '../adapters/jobs/pg-boss-refresh-queue.js';
import type { PromTelemetry } from '../adapters/metrics/prom-telemetry.js';
import { MemoryAccountStore } from '../adapters/memory/memory-account-store.js';
import { MemoryConnectionStore } from '../adapters/memory/memory-connection-store.js';
import { MemoryDashboardCatalog } from '../adapters/memory/memory-dashboard-catalog.js';
import { MemoryDashboardStore } from '../adapters/memory/memory-dashboard-store.js';
import { MemoryOAuthStore } from '../adapters/memory/memory-oauth-store.js';
import { MemoryRefreshStateStore } from '../adapters/memory/memory-refresh-state-store.js';
import { MemoryViewCounter } from '../adapters/memory/memory-view-counter.js';
import { MemoryViewerTickets } from '../adapters/memory/memory-viewer-tickets.js';
import { MemoryShareLinkStore } from '../adapters/memory/memory-share-link-store.js';
import { MemoryParamRenderStore } from '../adapters/memory/memory-param-render-store.js';
import { MemoryEmbedStore } from '../adapters/memory/memory-embed-store.js';
import { attachOrStartEmbedded } from '../adapters/pglite/embedded-postgres.js';
import { PgTokenInvalidations } from '../adapters/postgres/pg-token-invalidations.js';
import { migrate, openDataSource } from '../adapters/postgres/data-source.js';
import { TypeormAccountStore } from '../adapters/postgres/typeorm-account-store.js';
import { TypeormConnectionStore } from '../adapters/postgres/typeorm-connection-store.js';
import { TypeormDashboardCatalog } from '../adapters/postgres/typeorm-dashboard-catalog.js';
import { PostgresDashboardStore } from '../adapters/postgres/postgres-dashboard-store.js';
import { TypeormFileSweeper } from '../adapters/postgres/typeorm-file-sweeper.js';
import { TypeormListingVersions } from '../adapters/postgres/typeorm-listing-versions.js';
import { TypeormOAuthStore } from '../adapters/postgres/typeorm-oauth-store.js';
import { TypeormRefreshStateStore } from '../adapters/postgres/typeorm-refresh-state-store.js';
import { TypeormViewCounter } from '../adapters/postgres/typeorm-view-counter.js';
import { TypeormViewerTickets } from '../adapters/postgres/typeorm-viewer-tickets.js';
import { PostgresShareLinkStore } from '../adapters/postgres/postgres-share-link-store.js';
import { PostgresParamRenderStore } from '../adapters/postgres/postgres-param-render-store.js';
import { PostgresEmbedStore } from '../adapters/postgres/postgres-embed-store.js';
import type { Logger } from './logger.js';

/**
 * The OAuth store as the profile keeps it. The root binds `OAuthStore` to it wrapped, so that every
 * change that kills tokens also reaches the verifier's cache (shells/container.ts, sign-in).
 */
export const StoredOAuthStore = Symbol.for('StoredOAuthStore');

export interface StorageContext {
  settings: Settings;
  /** `server` owns the embedded database and listens for token invalidations; `cli` attaches. */
  role: 'server' | 'cli';
  /** Whether this process's refresh queue runs pg-boss's workers, cron and maintenance. */
  refreshWorkers: boolean;
  logger: Logger;
  telemetry: PromTelemetry;
  /** The database's port is added: outbound fetches must never reach it. */
  ownPorts: Set<number>;
  /** What the profile opened, released newest first by the container's close. */
  closers: Array<() => Promise<void>>;
}

export interface StorageProfile {
  module: ContainerModule;
  /** The URL the data source opened (DATABASE_URL or the embedded database's); null in memory. */
  databaseUrl: string | null;
  /** Names of the migrations this start applied. */
  migrationsApplied: string[];
  /** The service database's data source (its pool's use is a metric); null in memory. */
  dataSource: DataSource | null;
}

export async function openStorage(kind: 'database' | 'memory', context: StorageContext): Promise<StorageProfile> {
  if (kind === 'memory') return { module: memoryStorage(), databaseUrl: null, migrationsApplied: [], dataSource: null };
  return context.settings.databaseUrl ? postgresStorage(context, context.settings.databaseUrl) : embeddedStorage(context);
}

/** Every port on its in-memory adapter; nothing but this process changes anything, so tokens may always cache. */
function memoryStorage(): ContainerModule {
  return new ContainerModule(({ bind }) => {
    const dashboards = new MemoryDashboardStore();
    const refreshState = new MemoryRefreshStateStore();
    const views = new MemoryViewCounter();
    const queue = new MemoryRefreshQueue();
    bind<AccountStore>(AccountStore).toConstantValue(new MemoryAccountStore());
    bind<DashboardStore>(DashboardStore).toConstantValue(dashboards);
    // The in-memory adapters keep no listing version: list answers are never remembered.
    bind<ListingVersions>(ListingVersions).toConstantValue(NO_LISTING_VERSIONS);
    bind<OAuthStore>(StoredOAuthStore).toConstantValue(new MemoryOAuthStore());
    bind<TokenInvalidations>(TokenInvalidations).toConstantValue(IN_PROCESS_ONLY);
    bind<ViewCounter>(ViewCounter).toConstantValue(views);
    bind<ViewerTickets>(ViewerTickets).toConstantValue(new MemoryViewerTickets());
    bind<ShareLinkStore>(ShareLinkStore).toConstantValue(new MemoryShareLinkStore());
    bind<ParamRenderStore>(ParamRenderStore).toConstantValue(new MemoryParamRenderStore());
    bind<EmbedStore>(EmbedStore).toConstantValue(new MemoryEmbedStore());
    bind<SubscriptionStore>(SubscriptionStore).toConstantValue(new MemorySubscriptionStore());
    bind<AlertStateStore>(AlertStateStore).toConstantValue(new MemoryAlertStateStore());
    const deliveries = new MemoryDeliveryQueue();
    bind<DeliveryQueue>(DeliveryQueue).toConstantValue(deliveries);
    bind(MemoryDeliveryQueue).toConstantValue(deliveries);
    bind<ConnectionStore>(ConnectionStore).toConstantValue(new MemoryConnectionStore());
    bind<RefreshStateStore>(RefreshStateStore).toConstantValue(refreshState);
    bind<RefreshQueue>(RefreshQueue).toConstantValue(queue);
    bind(MemoryRefreshQueue).toConstantValue(queue);
    bind<DashboardCatalog>(DashboardCatalog).toConstantValue(new MemoryDashboardCatalog(dashboards, refreshState, views));
  });
}

/**
 * A PostgreSQL server of the operator's. A server hears other processes' token-killing changes on a
 * LISTEN connection (docs/decisions/0038-token-cache.md); a CLI verifies no tokens and does not listen.
 */
async function postgresStorage(context: StorageContext, url: string): Promise<StorageProfile> {
  const { dataSource, migrationsApplied } = await openDatabase(context, url, { exclusive: true });
  let invalidations: TokenInvalidations = UNHEARD;
  if (context.role === 'server') {
    const listener = new PgTokenInvalidations(url, context.logger.child({ component: 'token-invalidation' }));
    await listener.start();
    context.closers.push(() => listener.close());
    invalidations = listener;
  }
  return { module: databaseModule(context, dataSource, url, { preparedStatements: true, invalidations }), databaseUrl: url, migrationsApplied, dataSource };
}

/**
 * The embedded PGlite database: started by a server, attached to by a CLI. Its single shared session
 * cannot carry LISTEN to a server while a CLI revokes, so verified tokens are never cached; it takes
 * no named prepared statements.
 */
async function embeddedStorage(context: StorageContext): Promise<StorageProfile> {
  const database = await attachOrStartEmbedded(context.settings.dataDir, { role: context.role, logger: context.logger.child({ component: 'embedded-database' }) });
  context.closers.push(() => database.stop());
  const { dataSource, migrationsApplied } = await openDatabase(context, database.url, { exclusive: false });
  return {
    module: databaseModule(context, dataSource, database.url, { preparedStatements: false, invalidations: UNHEARD }),
    databaseUrl: database.url,
    migrationsApplied,
    dataSource,
  };
}

async function openDatabase(context: StorageContext, url: string, options: { exclusive: boolean }): Promise<{ dataSource: DataSource; migrationsApplied: string[] }> {
  context.ownPorts.add(portOf(url, 5432));
  const dataSource = await openDataSource(url, { migrate: false, poolSize: context.settings.databasePoolSize });
  context.closers.push(() => dataSource.destroy());
  return { dataSource, migrationsApplied: await migrate(dataSource, options) };
}

/** The TypeORM adapters over one data source, and the pg-boss refresh queue in the same database. */
function databaseModule(
  context: StorageContext,
  dataSource: DataSource,
  url: string,
  options: { preparedStatements: boolean; invalidations: TokenInvalidations },
): ContainerModule {
  const { settings, logger } = context;
  const queue = new PgBossRefreshQueue(url, {
    worker: context.refreshWorkers,
    logger: logger.child({ component: 'pg-boss' }),
    stopTimeoutMs: settings.shutdownGraceSeconds * 1000,
    deliveryRetryDelaySeconds: settings.deliveryRetryDelaySeconds,
  });
  context.telemetry.observeQueueDepth(() => queue.depth());
  context.closers.push(() => queue.close());
  return new ContainerModule(({ bind }) => {
    const prepared = { preparedStatements: options.preparedStatements };
    bind(DataSource).toConstantValue(dataSource);
    bind<AccountStore>(AccountStore).toConstantValue(new TypeormAccountStore(dataSource));
    bind<DashboardStore>(DashboardStore).toConstantValue(new PostgresDashboardStore(dataSource, prepared));
    bind<ListingVersions>(ListingVersions).toConstantValue(new TypeormListingVersions(dataSource, prepared));
    bind<OAuthStore>(StoredOAuthStore).toConstantValue(new TypeormOAuthStore(dataSource));
    bind<TokenInvalidations>(TokenInvalidations).toConstantValue(options.invalidations);
    bind<ViewCounter>(ViewCounter).toConstantValue(new TypeormViewCounter(dataSource));
    bind<ViewerTickets>(ViewerTickets).toConstantValue(new TypeormViewerTickets(dataSource));
    bind<ShareLinkStore>(ShareLinkStore).toConstantValue(new PostgresShareLinkStore(dataSource));
    bind<ParamRenderStore>(ParamRenderStore).toConstantValue(new PostgresParamRenderStore(dataSource));
    bind<EmbedStore>(EmbedStore).toConstantValue(new PostgresEmbedStore(dataSource, SecretBox.fromSettings(settings, 'embed secret')));
    bind<SubscriptionStore>(SubscriptionStore).toConstantValue(new PostgresSubscriptionStore(dataSource));
    bind<AlertStateStore>(AlertStateStore).toConstantValue(new PostgresAlertStateStore(dataSource));
    bind<DeliveryQueue>(DeliveryQueue).toConstantValue(new PgBossDeliveryQueue(queue));
    bind<ConnectionStore>(ConnectionStore).toConstantValue(new TypeormConnectionStore(dataSource, SecretBox.fromSettings(settings)));
    bind<RefreshStateStore>(RefreshStateStore).toConstantValue(new TypeormRefreshStateStore(dataSource));
    bind<FileSweeper>(FileSweeper).toConstantValue(new TypeormFileSweeper(dataSource));
    bind<RefreshQueue>(RefreshQueue).toConstantValue(queue);
    bind(PgBossRefreshQueue).toConstantValue(queue);
    bind<DashboardCatalog>(DashboardCatalog).toConstantValue(new TypeormDashboardCatalog(dataSource));
  });
}

export const portOf = (url: string, fallback: number): number => {
  try {
    return Number(new URL(url).port) || fallback;
  } catch {
    return fallback; // a URL only its driver understands: its port is not guessed
  }
};
