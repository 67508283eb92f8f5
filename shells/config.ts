import type { Settings } from '../application/ports/settings.js';

/** Reads DESIGN §6 settings from the environment; every default is the local one. */
export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  const port = Number(env.PORT ?? 8787);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be a port number (got "${env.PORT}")`);
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
    redisUrl: env.REDIS_URL || null,
    dataDir: env.DATA_DIR ?? './data',
    secretKey: env.SECRET_KEY || null,
    serviceName: env.SERVICE_NAME ?? 'service',
    allowSignup: flag(env.ALLOW_SIGNUP, true),
    logLevel: env.LOG_LEVEL ?? 'info',
  };
}
