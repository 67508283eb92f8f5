export interface RefreshOptions {
  /** Runs per owner per hour that trigger_refresh may start (the refresh service's own budget). */
  budgetPerHour: number;
}

export const RefreshOptions = Symbol.for('RefreshOptions');
export const DEFAULT_REFRESH_OPTIONS: RefreshOptions = { budgetPerHour: 60 };

export function refreshOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): RefreshOptions {
  const raw = env.REFRESH_BUDGET_PER_HOUR;
  const value = raw === undefined || raw === '' ? DEFAULT_REFRESH_OPTIONS.budgetPerHour : Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`REFRESH_BUDGET_PER_HOUR must be a positive integer (got "${raw}")`);
  return { budgetPerHour: value };
}
