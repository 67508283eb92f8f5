/**
 * The only composition root. It picks adapters from settings (PostgreSQL or the embedded PGlite,
 * Redis or in-memory limits) and binds every port and use case. Each capability adds its bindings in
 * its own section below.
 */
import 'reflect-metadata';
import { Container } from 'inversify';
import type { Settings as SettingsPort } from '../application/ports/settings.js';
import { Settings } from '../application/ports/settings.js';
import { Clock } from '../application/ports/clock.js';
import { RateLimiter } from '../application/ports/rate-limiter.js';
import { MemoryRateLimiter } from '../adapters/memory/memory-rate-limiter.js';
import { DataSource } from 'typeorm';
import { AccountStore } from '../application/ports/account-store.js';
import { DashboardStore } from '../application/ports/dashboard-store.js';
import { DashboardCatalog } from '../application/ports/dashboard-catalog.js';
import { RefreshStateStore } from '../application/ports/refresh-state-store.js';
import { MemoryDashboardCatalog } from '../adapters/memory/memory-dashboard-catalog.js';
import { TypeormDashboardCatalog } from '../adapters/postgres/typeorm-dashboard-catalog.js';
import { ConnectionDirectory } from '../application/ports/connection-directory.js';
import { ConnectionAccess } from '../application/connections/connection-access.js';
import { MemoryAccountStore } from '../adapters/memory/memory-account-store.js';
import { MemoryDashboardStore } from '../adapters/memory/memory-dashboard-store.js';
import { TypeormAccountStore } from '../adapters/postgres/typeorm-account-store.js';
import { PostgresDashboardStore } from '../adapters/postgres/postgres-dashboard-store.js';
import { TypeormListingVersions } from '../adapters/postgres/typeorm-listing-versions.js';
import { ListingVersions, NO_LISTING_VERSIONS } from '../application/ports/listing-versions.js';
import { ListAnswerCache } from './koa/mcp/list-answer-cache.js';
import { attachOrStartEmbedded } from '../adapters/pglite/embedded-postgres.js';
import { migrate, openDataSource } from '../adapters/postgres/data-source.js';
import { HostingOptions, DEFAULT_HOSTING_OPTIONS } from '../application/hosting/hosting-options.js';
import { ViewTally } from '../application/hosting/view-tally.js';
import { ViewerAccess } from '../application/hosting/viewer-access.js';
import { ViewCounter } from '../application/ports/view-counter.js';
import { ViewerTickets } from '../application/ports/viewer-tickets.js';
import { MemoryViewCounter } from '../adapters/memory/memory-view-counter.js';
import { MemoryViewerTickets } from '../adapters/memory/memory-viewer-tickets.js';
import { TypeormViewCounter } from '../adapters/postgres/typeorm-view-counter.js';
import { TypeormViewerTickets } from '../adapters/postgres/typeorm-viewer-tickets.js';

import { SecretTokens } from '../application/ports/secret-tokens.js';
import { PasswordHasher } from '../application/ports/password-hasher.js';
import { OAuthStore } from '../application/ports/oauth-store.js';
import { TokenVerifier } from '../application/ports/token-verifier.js';
import { WebSessions } from '../application/ports/web-sessions.js';
import { OAuthTokenVerifier } from '../application/auth/verify-access-token.js';
import { CachingTokenVerifier } from '../application/auth/cached-token-verifier.js';
import { InvalidatingOAuthStore } from '../application/auth/invalidating-oauth-store.js';
import { IN_PROCESS_ONLY, UNHEARD, TokenInvalidations } from '../application/ports/token-invalidations.js';
import { PgTokenInvalidations } from '../adapters/postgres/pg-token-invalidations.js';
import { WebSessionService } from '../application/auth/web-session-service.js';
import { NodeSecretTokens } from '../adapters/crypto/node-secret-tokens.js';
import { ScryptPasswordHasher } from '../adapters/crypto/scrypt-password-hasher.js';
import { MemoryOAuthStore } from '../adapters/memory/memory-oauth-store.js';
import { TypeormOAuthStore } from '../adapters/postgres/typeorm-oauth-store.js';
import { bindRefreshAndConnections } from './refresh-bindings.js';
import { IdentityProvider } from '../application/ports/identity-provider.js';
import { SecretSealer } from '../application/ports/secret-sealer.js';
import { SecretBox } from '../adapters/crypto/secret-box.js';
import { UPSTREAM_CALLBACK_PATH } from '../domain/upstream-sign-in.js';
import { Telemetry } from '../application/ports/telemetry.js';
import { PromTelemetry } from '../adapters/metrics/prom-telemetry.js';
import { MeteredRateLimiter } from '../adapters/metrics/metered-rate-limiter.js';
import { createLogger, type Logger } from './logger.js';
import { ClientMetadataSource } from '../application/ports/client-metadata-source.js';
import { HttpClientMetadataSource } from '../adapters/http/http-client-metadata-source.js';

export interface Closeable {
  close(): Promise<void>;
}

export interface AppContainer {
  container: Container;
  /** Names of the migrations this start applied. */
  migrationsApplied: string[];
  /** The process's logger, handed to every adapter and job that can fail in the background. */
  logger: Logger;
  /** The metrics this container records (served by the admin listener). */
  telemetry: PromTelemetry;
  /** Ports of this service on this machine, never fetched from; the server adds the ports it ends up listening on. */
  ownPorts: Set<number>;
  /** Releases pools, child processes and timers, newest first. */
  close(): Promise<void>;
}

export const systemClock: Clock = { now: () => new Date() };

export interface BuildOptions {
  /** `server` owns the embedded database; `cli` attaches to a running server's. */
  role?: 'server' | 'cli';
  /** `memory` for application tests: every port on its in-memory adapter. */
  storage?: 'database' | 'memory';
  clock?: Clock;
  /** Run refresh workers and the scheduler tick here (default: only `role: 'server'`). */
  refreshWorkers?: boolean;
  /** Hosting tunables (tests shorten the metadata cache). */
  hosting?: Partial<HostingOptions>;
  /** Defaults to a pino logger at LOG_LEVEL on stdout. */
  logger?: Logger;
}

export async function buildContainer(settings: SettingsPort, options: BuildOptions = {}): Promise<AppContainer> {
  const container = new Container({ defaultScope: 'Singleton', autobind: true });
  const closers: Array<() => Promise<void>> = [];
  let migrationsApplied: string[] = [];
  let databaseUrl: string | null = null;
  container.bind<SettingsPort>(Settings).toConstantValue(settings);
  container.bind<Clock>(Clock).toConstantValue(options.clock ?? systemClock);
  const logger = options.logger ?? createLogger(settings);
  // Node's process metrics sample on timers of their own: only worth it where something can scrape them.
  const telemetry = new PromTelemetry({ processMetrics: settings.adminPort !== null });
  container.bind<Telemetry>(Telemetry).toConstantValue(telemetry);
  const ownPorts = ownPortsOf(settings);

  // --- storage (foundation) ---
  if (options.storage === 'memory') {
    container.bind<AccountStore>(AccountStore).toConstantValue(new MemoryAccountStore());
    container.bind<DashboardStore>(DashboardStore).toConstantValue(new MemoryDashboardStore());
  } else {
    const database = settings.databaseUrl
      ? { url: settings.databaseUrl, stop: async () => {} }
      : await attachOrStartEmbedded(settings.dataDir, { role: options.role ?? 'server', logger: logger.child({ component: 'embedded-database' }) });
    closers.push(() => database.stop());
    databaseUrl = database.url;
    ownPorts.add(portOf(database.url, 5432));
    const dataSource = await openDataSource(database.url, { migrate: false, poolSize: settings.databasePoolSize });
    closers.push(() => dataSource.destroy());
    migrationsApplied = await migrate(dataSource, { exclusive: settings.databaseUrl !== null });
    container.bind(DataSource).toConstantValue(dataSource);
    telemetry.observePool(() => poolStats(dataSource));
    container.bind<AccountStore>(AccountStore).toConstantValue(new TypeormAccountStore(dataSource));
    container.bind<DashboardStore>(DashboardStore).toConstantValue(new PostgresDashboardStore(dataSource, { preparedStatements: settings.databaseUrl !== null }));
    container.bind<ListingVersions>(ListingVersions).toConstantValue(new TypeormListingVersions(dataSource, { preparedStatements: settings.databaseUrl !== null }));
  }
  // list_dashboards answers are remembered per process and checked against the owner's listing version on
  // every call (docs/decisions/0046-list-answer-cache.md); the in-memory adapters keep no version.
  if (options.storage === 'memory') container.bind<ListingVersions>(ListingVersions).toConstantValue(NO_LISTING_VERSIONS);
  container
    .bind(ListAnswerCache)
    .toConstantValue(new ListAnswerCache(container.get<ListingVersions>(ListingVersions), settings.listCacheMegabytes * 1024 * 1024, (outcome) => telemetry.listCache(outcome)));
  container.bind<ConnectionDirectory>(ConnectionDirectory).toService(ConnectionAccess);

  // --- rate limits (MCP endpoint) ---
  // Shared counters in Redis when REDIS_URL is set (several instances, one budget); in memory otherwise.
  // Either way each refusal is counted by limit. ioredis is imported only then: loaded, it adds about 10 MiB
  // to the resident size of a process that does not use it (docs/decisions/0043-large-body-decoding.md).
  if (settings.redisUrl) {
    const { RedisRateLimiter } = await import('../adapters/redis/redis-rate-limiter.js');
    const limiter = new RedisRateLimiter({ url: settings.redisUrl, logger: logger.child({ component: 'rate-limiter' }) });
    closers.push(() => limiter.close());
    container.bind<RateLimiter>(RateLimiter).toConstantValue(new MeteredRateLimiter(limiter, telemetry));
  } else {
    container.bind<RateLimiter>(RateLimiter).toConstantValue(new MeteredRateLimiter(container.get(MemoryRateLimiter), telemetry));
  }

  // --- sign-in (OAuth) ---
  container.bind<SecretTokens>(SecretTokens).to(NodeSecretTokens);
  container.bind<PasswordHasher>(PasswordHasher).toConstantValue(new ScryptPasswordHasher());
  {
    // Verified tokens are remembered per process, forgotten on every change that kills them
    // (docs/decisions/0038-token-cache.md). On PostgreSQL a server hears other processes' changes on a LISTEN
    // connection; in memory nothing but this process changes anything; the embedded database's single shared session
    // cannot carry LISTEN to a server while a CLI revokes, and a CLI verifies no tokens: those never cache.
    const store = options.storage === 'memory' ? new MemoryOAuthStore() : new TypeormOAuthStore(container.get(DataSource));
    let invalidations: TokenInvalidations = UNHEARD;
    if (options.storage === 'memory') invalidations = IN_PROCESS_ONLY;
    else if (settings.databaseUrl && (options.role ?? 'server') === 'server') {
      const listener = new PgTokenInvalidations(settings.databaseUrl, logger.child({ component: 'token-invalidation' }));
      await listener.start();
      closers.push(() => listener.close());
      invalidations = listener;
    }
    // The hosting side's viewer-session lookups are forgotten on the same channel (application/hosting/viewer-access.ts).
    container.bind<TokenInvalidations>(TokenInvalidations).toConstantValue(invalidations);
    const secrets = container.get<SecretTokens>(SecretTokens);
    const clock = container.get<Clock>(Clock);
    const verifier = new CachingTokenVerifier(new OAuthTokenVerifier(store, secrets, clock), invalidations, secrets, clock);
    container.bind<OAuthStore>(OAuthStore).toConstantValue(new InvalidatingOAuthStore(store, (change) => verifier.invalidate(change)));
    container.bind<TokenVerifier>(TokenVerifier).toConstantValue(verifier);
  }
  container.bind<WebSessions>(WebSessions).toService(WebSessionService);
  // Client ID metadata documents, fetched under the outbound address policy.
  container
    .bind<ClientMetadataSource>(ClientMetadataSource)
    .toConstantValue(new HttpClientMetadataSource({ allowLoopback: settings.allowLoopbackClientMetadata, ownPorts: () => ownPorts }));

  // --- upstream sign-in (OIDC, only when configured) ---
  // The sign-in attempt travels in a cookie sealed with its own key derived from SECRET_KEY.
  container.bind<SecretSealer>(SecretSealer).toConstantValue(SecretBox.fromSettings(settings, 'web-app upstream sign-in attempt'));
  if (settings.oidcIssuer && settings.oidcClientId) {
    const { OpenIdIdentityProvider } = await import('../adapters/oidc/openid-identity-provider.js');
    const provider = new OpenIdIdentityProvider({
      issuer: settings.oidcIssuer,
      clientId: settings.oidcClientId,
      clientSecret: settings.oidcClientSecret,
      displayName: settings.oidcName,
      redirectUri: `${settings.appUrl}${UPSTREAM_CALLBACK_PATH}`,
      logger: logger.child({ component: 'oidc' }),
    });
    container.bind<IdentityProvider>(IdentityProvider).toConstantValue(provider);
  }

  // --- hosting ---
  container.bind<HostingOptions>(HostingOptions).toConstantValue({ ...DEFAULT_HOSTING_OPTIONS, ...options.hosting });
  if (options.storage === 'memory') {
    container.bind<ViewCounter>(ViewCounter).toConstantValue(new MemoryViewCounter());
    container.bind<ViewerTickets>(ViewerTickets).toConstantValue(new MemoryViewerTickets());
  } else {
    const dataSource = container.get(DataSource);
    container.bind<ViewCounter>(ViewCounter).toConstantValue(new TypeormViewCounter(dataSource));
    container.bind<ViewerTickets>(ViewerTickets).toConstantValue(new TypeormViewerTickets(dataSource));
  }
  {
    // Views are written in batches every few seconds and once more on shutdown; a failed write stays
    // in the tally for the next one. Expired viewer tickets and sessions are swept now and then.
    const tally = container.get(ViewTally);
    const viewers = container.get(ViewerAccess);
    const log = logger.child({ component: 'hosting' });
    const flush = (when: string) =>
      tally.flush().catch((err: unknown) => log.warn({ err, when, pendingViews: tally.pendingViews }, 'view tally flush failed; the views are kept for the next flush'));
    const flushTimer = setInterval(() => void flush('periodic'), 5_000).unref();
    const purgeTimer = setInterval(
      () => void viewers.purgeExpired().catch((err: unknown) => log.warn({ err }, 'sweeping expired viewer tickets and sessions failed; retried in 10 minutes')),
      10 * 60_000,
    ).unref();
    closers.push(async () => {
      clearInterval(flushTimer);
      clearInterval(purgeTimer);
      await flush('shutdown');
    });
  }

  // --- refresh and connections ---
  await bindRefreshAndConnections(container, settings, databaseUrl, { ...options, logger, telemetry }, closers);

  // --- the web app's dashboards pages (their own read model) ---
  container
    .bind<DashboardCatalog>(DashboardCatalog)
    .toConstantValue(
      options.storage === 'memory'
        ? new MemoryDashboardCatalog(container.get(DashboardStore), container.get(RefreshStateStore), container.get(ViewCounter))
        : new TypeormDashboardCatalog(container.get(DataSource)),
    );

  return {
    container,
    migrationsApplied,
    logger,
    telemetry,
    ownPorts,
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}

/** The configured listeners' ports and the backing services' (a port of the database's host may be this machine's). */
function ownPortsOf(settings: SettingsPort): Set<number> {
  const ports = new Set<number>([settings.port]);
  if (settings.adminPort !== null) ports.add(settings.adminPort);
  if (settings.redisUrl) ports.add(portOf(settings.redisUrl, 6379));
  return ports;
}

const portOf = (url: string, fallback: number): number => {
  try {
    return Number(new URL(url).port) || fallback;
  } catch {
    return fallback; // a URL only its driver understands: its port is not guessed
  }
};

/** The pg pool behind TypeORM's PostgreSQL driver: connections checked out and queries waiting. */
function poolStats(dataSource: DataSource): { inUse: number; waiting: number } | null {
  const pool = (dataSource.driver as unknown as { master?: { totalCount: number; idleCount: number; waitingCount: number } }).master;
  if (!pool || typeof pool.totalCount !== 'number') return null;
  return { inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount };
}
