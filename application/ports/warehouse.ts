import type { Row } from '../../domain/dashboard-spec.js';
import type { BindValue } from '../../domain/spec-params.js';
import type { OwnerRef } from '../../domain/scope.js';

export interface ResultColumn {
  name: string;
  /** The PostgreSQL type name (`integer`, `text`, `numeric` ...), or `unknown`. */
  type: string;
}

export interface QueryResult {
  columns: ResultColumn[];
  rows: Row[];
  /** True when the row cap cut the result short. */
  truncated: boolean;
}

export interface TableInfo {
  schema: string;
  name: string;
  kind: 'table' | 'view';
  columns: Array<{ name: string; type: string; nullable: boolean }>;
}

export interface RunLimits {
  /** At most this many rows come back; more set `truncated`. */
  rowCap: number;
  timeoutMs: number;
}

export const DEFAULT_RUN_LIMITS: RunLimits = { rowCap: 10_000, timeoutMs: 15_000 };

/**
 * Somewhere SQL runs read-only. Failures of the user's SQL (syntax, timeout, permissions) throw
 * DomainError('invalid_argument') carrying the database's message; an unreachable database throws
 * DomainError('unavailable').
 */
export interface SqlTarget {
  /** `values` are bound to the statement's `$1`, `$2` ... as parameters, never written into its text. */
  run(sql: string, limits?: Partial<RunLimits>, values?: readonly BindValue[]): Promise<QueryResult>;
  /** EXPLAIN without running, then the first rows (`sample`) for validate_cube_sql. */
  explain(sql: string, values?: readonly BindValue[]): Promise<void>;
  introspect(): Promise<TableInfo[]>;
}

export const Warehouse = Symbol.for('Warehouse');
/** PostgreSQL warehouses reached by URL. */
export interface Warehouse {
  open(url: string): SqlTarget;
  /** Connect and `SELECT 1`; throws with the reason on failure. */
  test(url: string): Promise<void>;
}

export const SelfMetrics = Symbol.for('SelfMetrics');
/** The built-in `self` connection: one owner's aggregated metrics, and nothing of anyone else's. */
export interface SelfMetrics {
  open(owner: OwnerRef): SqlTarget;
}

/** The `self` connection's tables, already narrowed to one owner. */
export interface MetricsTables {
  dashboards: Row[];
  daily_views: Row[];
  publishes: Row[];
  refresh_runs: Row[];
}

export const MetricsSandbox = Symbol.for('MetricsSandbox');
/**
 * Runs SQL over the given tables in a database that holds nothing else: the user's SQL never runs
 * where another owner's rows exist, so no setting, catalog read or cast can reach them.
 */
export interface MetricsSandbox {
  /** `owner` keys the owner's warm sandbox and fair turn; `tables` are that owner's rows now. */
  run(owner: string, tables: MetricsTables, sql: string, limits?: Partial<RunLimits>, values?: readonly BindValue[]): Promise<QueryResult>;
  explain(owner: string, tables: MetricsTables, sql: string, values?: readonly BindValue[]): Promise<void>;
}
