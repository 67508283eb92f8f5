/**
 * The only composition root. It loads the storage profile's module (memory, PostgreSQL or the embedded
 * PGlite: shells/storage-profiles.ts), picks Redis or in-memory limits, and binds every other port and
 * use case, one section per capability. It starts no timer: the shell that runs the service starts the
 * periodic work (shells/background-work.ts).
 */
import 'reflect-metadata';
import { Container } from 'inversify';
import type { DataSource } from 'typeorm';
import type { Settings as SettingsPort } from '../application/ports/settings.js';
import { Settings } from '../application/ports/settings.js';
import { DashboardAddresses } from '../application/ports/dashboard-addresses.js';
import { dashboardAddresses } from './presenters/dashboards/dashboard-addresses.js';
import { Clock } from '../application/ports/clock.js';
import { RateLimiter } from '../application/ports/rate-limiter.js';
import { ConnectionDirectory } from '../application/ports/connection-directory.js';
import { ListingVersions } from '../application/ports/listing-versions.js';
import { SecretTokens } from '../application/ports/secret-tokens.js';
import { EmbedSigner } from '../application/ports/embed-signer.js';
import { PasswordHasher } from '../application/ports/password-hasher.js';
import { OAuthStore } from '../application/ports/oauth-store.js';
import { TokenVerifier } from '../application/ports/token-verifier.js';
import { WebSessions } from '../application/ports/web-sessions.js';
import { TokenInvalidations } from '../application/ports/token-invalidations.js';
import { IdentityProvider } from '../application/ports/identity-provider.js';
import { SecretSealer } from '../application/ports/secret-sealer.js';
import { Telemetry } from '../application/ports/telemetry.js';
import { ClientMetadataSource } from '../application/ports/client-metadata-source.js';
import { ConnectionAccess } from '../application/connections/connection-access.js';
import { HostingOptions, DEFAULT_HOSTING_OPTIONS } from '../application/hosting/hosting-options.js';
import { ViewTally } from '../application/hosting/view-tally.js';
import { OAuthTokenVerifier } from '../application/auth/verify-access-token.js';
import { CachingTokenVerifier } from '../application/auth/cached-token-verifier.js';
import { InvalidatingOAuthStore } from '../application/auth/invalidating-oauth-store.js';
import { WebSessionService } from '../application/auth/web-session-service.js';
import { UPSTREAM_CALLBACK_PATH } from '../domain/upstream-sign-in.js';
import { MemoryRateLimiter } from '../adapters/memory/memory-rate-limiter.js';
import { NodeSecretTokens } from '../adapters/crypto/node-secret-tokens.js';
import { HmacEmbedSigner } from '../adapters/crypto/hmac-embed-signer.js';
import { ScryptPasswordHasher } from '../adapters/crypto/scrypt-password-hasher.js';
import { SecretBox } from '../adapters/crypto/secret-box.js';
import { PromTelemetry } from '../adapters/metrics/prom-telemetry.js';
import { MeteredRateLimiter } from '../adapters/metrics/metered-rate-limiter.js';
import { HttpClientMetadataSource } from '../adapters/http/http-client-metadata-source.js';
import { ListAnswerCache } from './koa/mcp/list-answer-cache.js';
import { bindRefreshAndConnections } from './refresh-bindings.js';
import { bindDelivery } from './delivery-bindings.js';
import { openStorage, portOf, StoredOAuthStore } from './storage-profiles.js';
import { poolOf } from '../adapters/postgres/data-source.js';
import { createLogger, type Logger } from './logger.js';

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
  /** Whether the running service starts refresh workers and the scheduler tick here (shells/background-work.ts). */
  refreshWorkers: boolean;
  /** Releases pools, connections and child processes, newest first (stop the background work first). */
  close(): Promise<void>;
}

export const systemClock: Clock = { now: () => new Date() };

export interface BuildOptions {
  /** `server` owns the embedded database; `cli` attaches to a running server's. */
  role?: 'server' | 'cli';
  /** `memory` for application tests: every port on its in-memory adapter. */
  storage?: 'database' | 'memory';
  clock?: Clock;
  /** Run refresh workers and the scheduler tick here once the service starts (default: only `role: 'server'`). */
  refreshWorkers?: boolean;
  /** Hosting tunables (tests shorten the metadata cache). */
  hosting?: Partial<HostingOptions>;
  /** Defaults to a pino logger at LOG_LEVEL on stdout. */
  logger?: Logger;
}

export async function buildContainer(settings: SettingsPort, options: BuildOptions = {}): Promise<AppContainer> {
  const container = new Container({ defaultScope: 'Singleton', autobind: true });
  const closers: Array<() => Promise<void>> = [];
  container.bind<SettingsPort>(Settings).toConstantValue(settings);
  container.bind<DashboardAddresses>(DashboardAddresses).toConstantValue(dashboardAddresses(settings));
  container.bind<Clock>(Clock).toConstantValue(options.clock ?? systemClock);
  const logger = options.logger ?? createLogger(settings);
  // Node's process metrics sample on timers of their own: only worth it where something can scrape them.
  const telemetry = new PromTelemetry({ processMetrics: settings.adminPort !== null });
  container.bind<Telemetry>(Telemetry).toConstantValue(telemetry);
  const ownPorts = ownPortsOf(settings);
  const refreshWorkers = options.refreshWorkers ?? options.role === 'server';

  // --- storage: one module per profile (shells/storage-profiles.ts) ---
  const context = { settings, role: options.role ?? 'server', refreshWorkers, logger, telemetry, ownPorts, closers };
  const storage = await openStorage(options.storage ?? 'database', context);
  container.load(storage.module);
  const { dataSource } = storage;
  if (dataSource) telemetry.observePool(() => poolStats(dataSource));
  // list_dashboards answers are remembered per process and checked against the owner's listing version on
  // every call (docs/decisions/0046-list-answer-cache.md).
  container
    .bind(ListAnswerCache)
    .toConstantValue(new ListAnswerCache(container.get<ListingVersions>(ListingVersions), settings.listCacheMegabytes * 1024 * 1024, (outcome) => telemetry.listCache(outcome)));
  container.bind<ConnectionDirectory>(ConnectionDirectory).toService(ConnectionAccess);

  await bindRateLimits(container, settings, logger, telemetry, closers);
  bindSignIn(container, settings, ownPorts);
  await bindUpstreamSignIn(container, settings, logger);
  bindHosting(container, options, logger, closers);
  bindRefreshAndConnections(container, settings, storage.databaseUrl, { logger, telemetry }, closers);
  bindDelivery(container, settings, ownPorts, closers);

  return {
    container,
    migrationsApplied: storage.migrationsApplied,
    logger,
    telemetry,
    ownPorts,
    refreshWorkers,
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}

/**
 * Shared counters in Redis when REDIS_URL is set (several instances, one budget); in memory otherwise.
 * Either way each refusal is counted by limit. ioredis is imported only then: loaded, it adds about 10 MiB
 * to the resident size of a process that does not use it (docs/decisions/0043-large-body-decoding.md).
 */
async function bindRateLimits(container: Container, settings: SettingsPort, logger: Logger, telemetry: PromTelemetry, closers: Array<() => Promise<void>>): Promise<void> {
  if (settings.redisUrl) {
    const { RedisRateLimiter } = await import('../adapters/redis/redis-rate-limiter.js');
    const limiter = new RedisRateLimiter({ url: settings.redisUrl, logger: logger.child({ component: 'rate-limiter' }) });
    closers.push(() => limiter.close());
    container.bind<RateLimiter>(RateLimiter).toConstantValue(new MeteredRateLimiter(limiter, telemetry));
  } else {
    container.bind<RateLimiter>(RateLimiter).toConstantValue(new MeteredRateLimiter(container.get(MemoryRateLimiter), telemetry));
  }
}

/**
 * OAuth. Verified tokens are remembered per process, forgotten on every change that kills them
 * (docs/decisions/0038-token-cache.md); the storage profile says how such changes are heard.
 */
function bindSignIn(container: Container, settings: SettingsPort, ownPorts: Set<number>): void {
  container.bind<SecretTokens>(SecretTokens).to(NodeSecretTokens);
  container.bind<EmbedSigner>(EmbedSigner).to(HmacEmbedSigner);
  container.bind<PasswordHasher>(PasswordHasher).toConstantValue(new ScryptPasswordHasher());
  const store = container.get<OAuthStore>(StoredOAuthStore);
  // The hosting side's viewer-session lookups are forgotten on the same channel (application/hosting/viewer-access.ts).
  const invalidations = container.get<TokenInvalidations>(TokenInvalidations);
  const secrets = container.get<SecretTokens>(SecretTokens);
  const clock = container.get<Clock>(Clock);
  const verifier = new CachingTokenVerifier(new OAuthTokenVerifier(store, secrets, clock), invalidations, secrets, clock);
  container.bind<OAuthStore>(OAuthStore).toConstantValue(new InvalidatingOAuthStore(store, (change) => verifier.invalidate(change)));
  container.bind<TokenVerifier>(TokenVerifier).toConstantValue(verifier);
  container.bind<WebSessions>(WebSessions).toService(WebSessionService);
  // Client ID metadata documents, fetched under the outbound address policy.
  container
    .bind<ClientMetadataSource>(ClientMetadataSource)
    .toConstantValue(new HttpClientMetadataSource({ allowLoopback: settings.allowLoopbackClientMetadata, ownPorts: () => ownPorts }));
}

/** Upstream sign-in (OIDC, only when configured). The attempt travels in a cookie sealed with its own key derived from SECRET_KEY. */
async function bindUpstreamSignIn(container: Container, settings: SettingsPort, logger: Logger): Promise<void> {
  container.bind<SecretSealer>(SecretSealer).toConstantValue(SecretBox.fromSettings(settings, 'web-app upstream sign-in attempt'));
  if (!settings.oidcIssuer || !settings.oidcClientId) return;
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

/**
 * Hosting. Views are written in batches by the running service (shells/background-work.ts) and once
 * more here on close; a failed write stays in the tally for the next one.
 */
function bindHosting(container: Container, options: BuildOptions, logger: Logger, closers: Array<() => Promise<void>>): void {
  container.bind<HostingOptions>(HostingOptions).toConstantValue({ ...DEFAULT_HOSTING_OPTIONS, ...options.hosting });
  const tally = container.get(ViewTally);
  const log = logger.child({ component: 'hosting' });
  closers.push(() => flushViews(tally, log, 'shutdown'));
}

/** Writes the views counted so far; on failure they stay in the tally for the next flush. */
export function flushViews(tally: ViewTally, log: Logger, when: 'periodic' | 'shutdown'): Promise<void> {
  return tally.flush().catch((err: unknown) => log.warn({ err, when, pendingViews: tally.pendingViews }, 'view tally flush failed; the views are kept for the next flush'));
}

/** The configured listeners' ports and the backing services' (a port of the database's host may be this machine's). */
function ownPortsOf(settings: SettingsPort): Set<number> {
  const ports = new Set<number>([settings.port]);
  if (settings.adminPort !== null) ports.add(settings.adminPort);
  if (settings.redisUrl) ports.add(portOf(settings.redisUrl, 6379));
  return ports;
}

/** The pg pool behind TypeORM's PostgreSQL driver: connections checked out and queries waiting. */
function poolStats(dataSource: DataSource): { inUse: number; waiting: number } | null {
  const pool = poolOf(dataSource);
  if (!pool) return null;
  return { inUse: pool.totalCount - pool.idleCount, waiting: pool.waitingCount };
}
