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
import { RedisRateLimiter } from '../adapters/redis/redis-rate-limiter.js';
import { DataSource } from 'typeorm';
import { AccountStore } from '../application/ports/account-store.js';
import { DashboardStore } from '../application/ports/dashboard-store.js';
import { ConnectionDirectory } from '../application/ports/connection-directory.js';
import { ConnectionAccess } from '../application/connections/connection-access.js';
import { MemoryAccountStore } from '../adapters/memory/memory-account-store.js';
import { MemoryDashboardStore } from '../adapters/memory/memory-dashboard-store.js';
import { TypeormAccountStore } from '../adapters/typeorm/typeorm-account-store.js';
import { TypeormDashboardStore } from '../adapters/typeorm/typeorm-dashboard-store.js';
import { attachOrStartEmbedded } from '../adapters/pglite/embedded-postgres.js';
import { migrate, openDataSource } from '../adapters/typeorm/data-source.js';
import { HostingOptions, DEFAULT_HOSTING_OPTIONS } from '../application/hosting/hosting-options.js';
import { ViewTally } from '../application/hosting/view-tally.js';
import { ViewerAccess } from '../application/hosting/viewer-access.js';
import { ViewCounter } from '../application/ports/view-counter.js';
import { ViewerTickets } from '../application/ports/viewer-tickets.js';
import { MemoryViewCounter } from '../adapters/memory/memory-view-counter.js';
import { MemoryViewerTickets } from '../adapters/memory/memory-viewer-tickets.js';
import { TypeormViewCounter } from '../adapters/typeorm/typeorm-view-counter.js';
import { TypeormViewerTickets } from '../adapters/typeorm/typeorm-viewer-tickets.js';

import { SecretTokens } from '../application/ports/secret-tokens.js';
import { PasswordHasher } from '../application/ports/password-hasher.js';
import { OAuthStore } from '../application/ports/oauth-store.js';
import { TokenVerifier } from '../application/ports/token-verifier.js';
import { WebSessions } from '../application/ports/web-sessions.js';
import { OAuthTokenVerifier } from '../application/auth/verify-access-token.js';
import { CachingTokenVerifier } from '../application/auth/cached-token-verifier.js';
import { InvalidatingOAuthStore } from '../application/auth/invalidating-oauth-store.js';
import { IN_PROCESS_ONLY, UNHEARD, type TokenInvalidations } from '../application/ports/token-invalidations.js';
import { PgTokenInvalidations } from '../adapters/postgres/pg-token-invalidations.js';
import { createLogger } from './logger.js';
import { WebSessionService } from '../application/auth/web-session-service.js';
import { NodeSecretTokens } from '../adapters/crypto/node-secret-tokens.js';
import { ScryptPasswordHasher } from '../adapters/crypto/scrypt-password-hasher.js';
import { MemoryOAuthStore } from '../adapters/memory/memory-oauth-store.js';
import { TypeormOAuthStore } from '../adapters/typeorm/typeorm-oauth-store.js';
import { bindRefreshAndConnections } from './refresh-bindings.js';
import { IdentityProvider } from '../application/ports/identity-provider.js';
import { SecretSealer } from '../application/ports/secret-sealer.js';
import { SecretBox } from '../adapters/crypto/secret-box.js';
import { OpenIdIdentityProvider } from '../adapters/oidc/openid-identity-provider.js';
import { UPSTREAM_CALLBACK_PATH } from '../domain/upstream-sign-in.js';

export interface Closeable {
  close(): Promise<void>;
}

export interface AppContainer {
  container: Container;
  /** Names of the migrations this start applied. */
  migrationsApplied: string[];
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
}

export async function buildContainer(settings: SettingsPort, options: BuildOptions = {}): Promise<AppContainer> {
  const container = new Container({ defaultScope: 'Singleton', autobind: true });
  const closers: Array<() => Promise<void>> = [];
  let migrationsApplied: string[] = [];
  container.bind<SettingsPort>(Settings).toConstantValue(settings);
  container.bind<Clock>(Clock).toConstantValue(options.clock ?? systemClock);

  // --- storage (foundation) ---
  if (options.storage === 'memory') {
    container.bind<AccountStore>(AccountStore).toConstantValue(new MemoryAccountStore());
    container.bind<DashboardStore>(DashboardStore).toConstantValue(new MemoryDashboardStore());
  } else {
    const database = settings.databaseUrl
      ? { url: settings.databaseUrl, stop: async () => {} }
      : await attachOrStartEmbedded(settings.dataDir, { role: options.role ?? 'server' });
    closers.push(() => database.stop());
    const dataSource = await openDataSource(database.url, { migrate: false, poolSize: settings.databasePoolSize });
    closers.push(() => dataSource.destroy());
    migrationsApplied = await migrate(dataSource, { exclusive: settings.databaseUrl !== null });
    container.bind(DataSource).toConstantValue(dataSource);
    container.bind<AccountStore>(AccountStore).toConstantValue(new TypeormAccountStore(dataSource));
    container.bind<DashboardStore>(DashboardStore).toConstantValue(new TypeormDashboardStore(dataSource));
  }
  container.bind<ConnectionDirectory>(ConnectionDirectory).toService(ConnectionAccess);

  // --- rate limits (MCP endpoint) ---
  // Shared counters in Redis when REDIS_URL is set (several instances, one budget); in memory otherwise.
  if (settings.redisUrl) {
    const limiter = new RedisRateLimiter({ url: settings.redisUrl });
    closers.push(() => limiter.close());
    container.bind<RateLimiter>(RateLimiter).toConstantValue(limiter);
  } else {
    container.bind<RateLimiter>(RateLimiter).to(MemoryRateLimiter);
  }

  // --- sign-in (OAuth) ---
  container.bind<SecretTokens>(SecretTokens).to(NodeSecretTokens);
  container.bind<PasswordHasher>(PasswordHasher).toConstantValue(new ScryptPasswordHasher());
  {
    // Verified tokens are remembered per process, forgotten on every change that kills them (docs/decisions.md,
    // "Hot path of the MCP endpoint"). On PostgreSQL a server hears other processes' changes on a LISTEN connection;
    // in memory nothing but this process changes anything; the embedded database's single shared session
    // cannot carry LISTEN to a server while a CLI revokes, and a CLI verifies no tokens: those never cache.
    const store = options.storage === 'memory' ? new MemoryOAuthStore() : new TypeormOAuthStore(container.get(DataSource));
    let invalidations: TokenInvalidations = UNHEARD;
    if (options.storage === 'memory') invalidations = IN_PROCESS_ONLY;
    else if (settings.databaseUrl && (options.role ?? 'server') === 'server') {
      const listener = new PgTokenInvalidations(settings.databaseUrl, createLogger(settings).child({ component: 'token-invalidation' }));
      await listener.start();
      closers.push(() => listener.close());
      invalidations = listener;
    }
    const secrets = container.get<SecretTokens>(SecretTokens);
    const clock = container.get<Clock>(Clock);
    const verifier = new CachingTokenVerifier(new OAuthTokenVerifier(store, secrets, clock), invalidations, secrets, clock);
    container.bind<OAuthStore>(OAuthStore).toConstantValue(new InvalidatingOAuthStore(store, (change) => verifier.invalidate(change)));
    container.bind<TokenVerifier>(TokenVerifier).toConstantValue(verifier);
  }
  container.bind<WebSessions>(WebSessions).toService(WebSessionService);

  // --- upstream sign-in (OIDC, only when configured) ---
  // The sign-in attempt travels in a cookie sealed with its own key derived from SECRET_KEY.
  container.bind<SecretSealer>(SecretSealer).toConstantValue(SecretBox.fromSettings(settings, 'web-app upstream sign-in attempt'));
  if (settings.oidcIssuer && settings.oidcClientId) {
    const provider = new OpenIdIdentityProvider({
      issuer: settings.oidcIssuer,
      clientId: settings.oidcClientId,
      clientSecret: settings.oidcClientSecret,
      displayName: settings.oidcName,
      redirectUri: `${settings.appUrl}${UPSTREAM_CALLBACK_PATH}`,
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
    const flushTimer = setInterval(() => void tally.flush().catch(() => {}), 5_000).unref();
    const purgeTimer = setInterval(() => void viewers.purgeExpired().catch(() => {}), 10 * 60_000).unref();
    closers.push(async () => {
      clearInterval(flushTimer);
      clearInterval(purgeTimer);
      await tally.flush().catch(() => {});
    });
  }

  // --- refresh and connections ---
  await bindRefreshAndConnections(container, settings, options, closers);

  return {
    container,
    migrationsApplied,
    async close() {
      for (const close of closers.reverse()) await close();
    },
  };
}
