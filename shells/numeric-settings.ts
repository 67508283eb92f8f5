import { IsInt, IsNumber, Max, Min, validateSync } from 'class-validator';

const PORT = 'PORT must be a port number';
const TRUST_PROXY = 'TRUST_PROXY must be true, false or the number of proxies in front of the service, 0 to 10';
const REFRESH_BUDGET = 'REFRESH_BUDGET_PER_HOUR must be a positive integer';
const REFRESH_RETRY_GRACE = 'REFRESH_RETRY_GRACE_SECONDS must be a whole number of seconds, 0 to 300';
const MIN_INTERVAL_FREE = 'MIN_REFRESH_INTERVAL_FREE_MINUTES must be a whole number of minutes, 1 to 1440';
const MIN_INTERVAL_PRO = 'MIN_REFRESH_INTERVAL_PRO_MINUTES must be a whole number of minutes, 1 to 1440';
const ADMIN_PORT = 'ADMIN_PORT must be a port number';
const SHUTDOWN_GRACE = 'SHUTDOWN_GRACE_SECONDS must be a number of seconds, 0 to 3600';
const POOL_SIZE = 'DATABASE_POOL_SIZE must be a whole number of connections, 1 to 500';
const LIST_CACHE = 'LIST_CACHE_MB must be a whole number of megabytes, 0 to 4096';
const SELF_SANDBOXES = 'SELF_SANDBOXES must be a whole number of sandboxes, 2 to 64';
const SELF_TIMEOUT = 'SELF_QUERY_TIMEOUT_SECONDS must be a number of seconds, 1 to 60';
const CELL_BYTES = 'QUERY_MAX_CELL_BYTES must be a whole number of bytes, 1024 to 268435456';
const DELIVERY_RETRY = 'DELIVERY_RETRY_DELAY_SECONDS must be a whole number of seconds, 1 to 3600';
const RENDER_THREADS = 'RENDER_THREADS must be a whole number of threads, 0 to 16';
const RESULT_BYTES = 'QUERY_MAX_RESULT_BYTES must be a whole number of bytes, 65536 to 1073741824';

/**
 * The ranges of the numeric settings, declared once. Each field's message is the operator-facing refusal;
 * `checkNumbers` appends the text the operator actually set, so a typo is visible in the start-up error.
 */
export class NumericSettings {
  @IsInt({ message: PORT })
  @Min(0, { message: PORT })
  @Max(65535, { message: PORT })
  port = 0;

  @IsInt({ message: TRUST_PROXY })
  @Min(0, { message: TRUST_PROXY })
  @Max(10, { message: TRUST_PROXY })
  trustProxyHops = 0;

  @IsInt({ message: REFRESH_BUDGET })
  @Min(1, { message: REFRESH_BUDGET })
  refreshBudgetPerHour = 1;

  @IsInt({ message: DELIVERY_RETRY })
  @Min(1, { message: DELIVERY_RETRY })
  @Max(3600, { message: DELIVERY_RETRY })
  deliveryRetryDelaySeconds = 1;

  @IsInt({ message: REFRESH_RETRY_GRACE })
  @Min(0, { message: REFRESH_RETRY_GRACE })
  @Max(300, { message: REFRESH_RETRY_GRACE })
  refreshRetryGraceSeconds = 0;

  // At most a day: a longer gap could only come from the day fields, which the check does not measure.
  @IsInt({ message: MIN_INTERVAL_FREE })
  @Min(1, { message: MIN_INTERVAL_FREE })
  @Max(1440, { message: MIN_INTERVAL_FREE })
  minRefreshIntervalFreeMinutes = 1;

  @IsInt({ message: MIN_INTERVAL_PRO })
  @Min(1, { message: MIN_INTERVAL_PRO })
  @Max(1440, { message: MIN_INTERVAL_PRO })
  minRefreshIntervalProMinutes = 1;

  @IsInt({ message: ADMIN_PORT })
  @Min(0, { message: ADMIN_PORT })
  @Max(65535, { message: ADMIN_PORT })
  adminPort = 0;

  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: SHUTDOWN_GRACE })
  @Min(0, { message: SHUTDOWN_GRACE })
  @Max(3600, { message: SHUTDOWN_GRACE })
  shutdownGraceSeconds = 0;

  @IsInt({ message: POOL_SIZE })
  @Min(1, { message: POOL_SIZE })
  @Max(500, { message: POOL_SIZE })
  databasePoolSize = 1;

  @IsInt({ message: LIST_CACHE })
  @Min(0, { message: LIST_CACHE })
  @Max(4096, { message: LIST_CACHE })
  listCacheMegabytes = 0;

  @IsInt({ message: SELF_SANDBOXES })
  @Min(2, { message: SELF_SANDBOXES })
  @Max(64, { message: SELF_SANDBOXES })
  selfSandboxes = 2;

  @IsNumber({ allowNaN: false, allowInfinity: false }, { message: SELF_TIMEOUT })
  @Min(1, { message: SELF_TIMEOUT })
  @Max(60, { message: SELF_TIMEOUT })
  selfQueryTimeoutSeconds = 1;

  @IsInt({ message: CELL_BYTES })
  @Min(1024, { message: CELL_BYTES })
  @Max(268435456, { message: CELL_BYTES })
  queryMaxCellBytes = 1024;

  @IsInt({ message: RENDER_THREADS })
  @Min(0, { message: RENDER_THREADS })
  @Max(16, { message: RENDER_THREADS })
  renderThreads = 0;

  @IsInt({ message: RESULT_BYTES })
  @Min(65536, { message: RESULT_BYTES })
  @Max(1073741824, { message: RESULT_BYTES })
  queryMaxResultBytes = 65536;
}

type Numbers = { [K in keyof NumericSettings]: NumericSettings[K] };

/** Checks one numeric setting against its declared range; throws `<rule> (got "<raw>")` on the first miss. */
export function checkNumber<K extends keyof Numbers>(name: K, value: number, raw: string | undefined): number {
  const numbers = Object.assign(new NumericSettings(), { [name]: value });
  const [failure] = validateSync(numbers, { skipMissingProperties: false }).filter((error) => error.property === name);
  if (failure) throw new Error(`${Object.values(failure.constraints ?? {})[0]} (got "${raw}")`);
  return value;
}
