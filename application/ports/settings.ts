export const Settings = Symbol.for('Settings');
/** Operator settings (DESIGN §6), resolved once by the composition root. */
export interface Settings {
  port: number;
  host: string;
  baseUrl: string;
  appUrl: string;
  dashboardDomain: string;
  dashboardScheme: string;
  databaseUrl: string | null;
  redisUrl: string | null;
  dataDir: string;
  secretKey: string | null;
  serviceName: string;
  allowSignup: boolean;
  logLevel: string;
}
