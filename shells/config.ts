import type { Settings } from '../application/ports/settings.js';
import { issuerMayUseHttp } from '../domain/upstream-sign-in.js';
import { checkNumber } from './numeric-settings.js';
import { httpLimitSettings } from './http-limit-settings.js';

/** Reads the settings docs/operations.md lists ("Settings") from the environment; every default is the local one. */
export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const port = checkNumber('port', Number(env.PORT ?? 8787), env.PORT);
  const flag = (value: string | undefined, fallback: boolean) =>
    value === undefined ? fallback : !['0', 'false', 'no', 'off'].includes(value.toLowerCase());
  const trimSlash = (url: string) => url.replace(/\/+$/, '');
  return {
    port,
    host: env.HOST ?? '127.0.0.1',
    baseUrl: trimSlash(env.BASE_URL ?? `http://localhost:${port}`),
    appUrl: trimSlash(env.APP_URL ?? `http://app.localhost:${port}`),
    dashboardDomain: env.DASHBOARD_DOMAIN ?? `dash.localhost:${port}`,
    dashboardScheme: env.DASHBOARD_SCHEME ?? 'http',
    databaseUrl: env.DATABASE_URL || null,
    databasePoolSize: poolSize(env.DATABASE_POOL_SIZE),
    listCacheMegabytes: listCache(env.LIST_CACHE_MB),
    redisUrl: env.REDIS_URL || null,
    dataDir: env.DATA_DIR ?? './data',
    secretKey: env.SECRET_KEY || null,
    serviceName: env.SERVICE_NAME ?? 'service',
    serviceDisplayName: displayName(env.SERVICE_DISPLAY_NAME),
    allowSignup: flag(env.ALLOW_SIGNUP, true),
    allowPrivateWarehouses: flag(env.ALLOW_PRIVATE_WAREHOUSES, false),
    allowLoopbackClientMetadata: flag(env.ALLOW_LOOPBACK_CLIENT_METADATA, false),
    ...oidcSettings(env),
    trustProxyHops: proxyHops(env.TRUST_PROXY),
    refreshBudgetPerHour: refreshBudget(env.REFRESH_BUDGET_PER_HOUR),
    refreshRetryGraceSeconds: refreshRetryGrace(env.REFRESH_RETRY_GRACE_SECONDS),
    minRefreshIntervalFreeMinutes: minimumInterval('minRefreshIntervalFreeMinutes', env.MIN_REFRESH_INTERVAL_FREE_MINUTES, 15),
    minRefreshIntervalProMinutes: minimumInterval('minRefreshIntervalProMinutes', env.MIN_REFRESH_INTERVAL_PRO_MINUTES, 1),
    logLevel: env.LOG_LEVEL ?? 'info',
    ...operatorSettings(env),
    ...httpLimitSettings(env),
    ...querySettings(env),
    ...deliverySettings(env),
  };
}

type QuerySettings = Pick<Settings, 'selfSandboxes' | 'selfQueryTimeoutSeconds' | 'queryMaxCellBytes' | 'queryMaxResultBytes' | 'renderThreads'>;

/** SELF_SANDBOXES, SELF_QUERY_TIMEOUT_SECONDS, QUERY_MAX_CELL_BYTES, QUERY_MAX_RESULT_BYTES (README "Limits") and RENDER_THREADS. */
function querySettings(env: NodeJS.ProcessEnv): QuerySettings {
  const read = <K extends keyof QuerySettings>(name: K, value: string | undefined, fallback: number) => {
    const text = value?.trim() ?? '';
    return text === '' ? fallback : checkNumber(name, Number(text), value);
  };
  return {
    selfSandboxes: read('selfSandboxes', env.SELF_SANDBOXES, 3),
    selfQueryTimeoutSeconds: read('selfQueryTimeoutSeconds', env.SELF_QUERY_TIMEOUT_SECONDS, 5),
    queryMaxCellBytes: read('queryMaxCellBytes', env.QUERY_MAX_CELL_BYTES, 1024 * 1024),
    queryMaxResultBytes: read('queryMaxResultBytes', env.QUERY_MAX_RESULT_BYTES, 16 * 1024 * 1024),
    renderThreads: read('renderThreads', env.RENDER_THREADS, 1),
  };
}

type DeliverySettings = Pick<Settings, 'smtpUrl' | 'mailFrom' | 'allowPrivateWebhooks' | 'deliveryRetryDelaySeconds'>;

/** SMTP_URL, MAIL_FROM, ALLOW_PRIVATE_WEBHOOKS and DELIVERY_RETRY_DELAY_SECONDS (docs/operations.md, "Delivery"). */
function deliverySettings(env: NodeJS.ProcessEnv): DeliverySettings {
  const smtpUrl = env.SMTP_URL?.trim() || null;
  if (smtpUrl !== null && !/^smtps?:\/\//i.test(smtpUrl)) throw new Error(`SMTP_URL must be an smtp:// or smtps:// URL, such as smtps://user:password@mail.example.com (got a value starting "${smtpUrl.slice(0, 8)}")`);
  const retryText = env.DELIVERY_RETRY_DELAY_SECONDS?.trim() ?? '';
  return {
    smtpUrl,
    mailFrom: env.MAIL_FROM?.trim() || null,
    allowPrivateWebhooks: !['', '0', 'false', 'no', 'off'].includes((env.ALLOW_PRIVATE_WEBHOOKS ?? '').trim().toLowerCase()),
    deliveryRetryDelaySeconds: retryText === '' ? 30 : checkNumber('deliveryRetryDelaySeconds', Number(retryText), env.DELIVERY_RETRY_DELAY_SECONDS),
  };
}

type OperatorSettings = Pick<Settings, 'adminPort' | 'adminHost' | 'shutdownGraceSeconds'>;

/** ADMIN_PORT, ADMIN_HOST and SHUTDOWN_GRACE_SECONDS (docs/operations.md, "Running in production"). */
function operatorSettings(env: NodeJS.ProcessEnv): OperatorSettings {
  const adminText = env.ADMIN_PORT?.trim() ?? '';
  const adminPort = adminText === '' ? null : checkNumber('adminPort', Number(adminText), env.ADMIN_PORT);
  const graceText = env.SHUTDOWN_GRACE_SECONDS?.trim() ?? '';
  const grace = graceText === '' ? 10 : checkNumber('shutdownGraceSeconds', Number(graceText), env.SHUTDOWN_GRACE_SECONDS);
  return { adminPort, adminHost: env.ADMIN_HOST?.trim() || '127.0.0.1', shutdownGraceSeconds: grace };
}

type OidcSettings = Pick<Settings, 'oidcIssuer' | 'oidcClientId' | 'oidcClientSecret' | 'oidcName'>;

/** OIDC_* settings; a half configuration is a startup error rather than a sign-in button that fails. */
function oidcSettings(env: NodeJS.ProcessEnv): OidcSettings {
  const issuer = env.OIDC_ISSUER?.trim() || null;
  const clientId = env.OIDC_CLIENT_ID?.trim() || null;
  const clientSecret = env.OIDC_CLIENT_SECRET || null;
  const name = env.OIDC_NAME?.trim() || 'single sign-on';
  if (!issuer) {
    if (clientId || clientSecret) throw new Error('OIDC_CLIENT_ID or OIDC_CLIENT_SECRET is set but OIDC_ISSUER is not: set OIDC_ISSUER too, or neither');
    return { oidcIssuer: null, oidcClientId: null, oidcClientSecret: null, oidcName: name };
  }
  if (!clientId) throw new Error('OIDC_ISSUER is set but OIDC_CLIENT_ID is not: upstream sign-in needs the client id registered at the provider');
  let url: URL;
  try {
    url = new URL(issuer);
  } catch {
    throw new Error(`OIDC_ISSUER must be an absolute URL (got "${issuer}")`);
  }
  if (url.protocol !== 'https:' && !issuerMayUseHttp(issuer)) {
    throw new Error(`OIDC_ISSUER must use https (http only on a loopback address) (got "${issuer}")`);
  }
  return { oidcIssuer: issuer, oidcClientId: clientId, oidcClientSecret: clientSecret, oidcName: name };
}

/** Characters that could break or disguise a page title: C0/C1 controls, line and paragraph separators, bidi overrides. */
const UNPRINTABLE = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069]/u;

/** SERVICE_DISPLAY_NAME: the product's name on pages, 1 to 60 characters, `dashpub` when unset or blank. */
function displayName(value: string | undefined): string {
  const text = value?.trim() ?? '';
  if (text === '') return 'dashpub';
  if ([...text].length > 60 || UNPRINTABLE.test(text)) {
    throw new Error(`SERVICE_DISPLAY_NAME must be 1 to 60 characters with no control characters (got ${JSON.stringify(value)})`);
  }
  return text;
}

/** MIN_REFRESH_INTERVAL_<PLAN>_MINUTES: a plan's shortest gap between scheduled runs; `fallback` when unset or empty. */
function minimumInterval(name: 'minRefreshIntervalFreeMinutes' | 'minRefreshIntervalProMinutes', value: string | undefined, fallback: number): number {
  return checkNumber(name, value === undefined || value.trim() === '' ? fallback : Number(value), value);
}

/** REFRESH_RETRY_GRACE_SECONDS: the window for retrying a refresh with the previous token; 10 when unset or empty. */
function refreshRetryGrace(value: string | undefined): number {
  return checkNumber('refreshRetryGraceSeconds', value === undefined || value.trim() === '' ? 10 : Number(value), value);
}

/** REFRESH_BUDGET_PER_HOUR: manual refreshes each owner may start per hour; 60 when unset or empty. */
function refreshBudget(value: string | undefined): number {
  return checkNumber('refreshBudgetPerHour', value === undefined || value === '' ? 60 : Number(value), value);
}

/** DATABASE_POOL_SIZE: 1 to 500 connections per process, 8 by default (docs/decisions/0040-database-pool.md). */
function poolSize(value: string | undefined): number {
  const text = value?.trim() ?? '';
  if (text === '') return 8;
  return checkNumber('databasePoolSize', Number(text), value);
}

/** LIST_CACHE_MB: 0 to 4096 megabytes of remembered list_dashboards answers per process, 32 by default. */
function listCache(value: string | undefined): number {
  const text = value?.trim() ?? '';
  if (text === '') return 32;
  return checkNumber('listCacheMegabytes', Number(text), value);
}

/** TRUST_PROXY: a number of proxy hops; `true` means one, `false` none. */
function proxyHops(value: string | undefined): number {
  const text = value?.trim().toLowerCase() ?? '';
  if (text === '' || ['0', 'false', 'no', 'off'].includes(text)) return 0;
  if (['true', 'yes', 'on'].includes(text)) return 1;
  return checkNumber('trustProxyHops', Number(text), value);
}
