import { columnProblems, queryIds, type DashboardSpec, type Row } from '../../domain/dashboard-spec.js';
import { DomainError, isDomainError } from '../../domain/errors.js';
import { bindParams, defaultValues, type ParamValues } from '../../domain/spec-params.js';
import type { SqlTarget } from '../ports/warehouse.js';

export interface QueryData {
  data: Record<string, Row[]>;
  rows: number;
  warnings: string[];
}

/**
 * Runs every query of a spec on one target, in spec order, with its parameters bound (the defaults unless
 * `values` says otherwise); the first failure names its query.
 */
export async function runSpecQueries(spec: DashboardSpec, target: SqlTarget, values?: ParamValues): Promise<QueryData> {
  const params = spec.params ?? [];
  const chosen = values ?? defaultValues(params);
  const data: Record<string, Row[]> = {};
  const warnings: string[] = [];
  let rows = 0;
  for (const id of queryIds(spec)) {
    const bound = bindParams(spec.queries![id]!.sql, params, chosen);
    const result = await naming(id, () => target.run(bound.sql, undefined, bound.values));
    data[id] = result.rows;
    rows += result.rows.length;
    if (result.truncated) warnings.push(`query "${id}" returned more than ${result.rows.length} rows; only the first ${result.rows.length} are shown`);
  }
  warnings.push(...columnProblems(spec, data));
  return { data, rows, warnings };
}

/**
 * A dry run's check of a spec's queries: each is prepared on its connection (EXPLAIN, no rows fetched), so a
 * missing table or column is refused now, in the words the real publish would use.
 */
export async function checkSpecQueries(spec: DashboardSpec, target: SqlTarget): Promise<void> {
  const params = spec.params ?? [];
  const chosen = defaultValues(params);
  for (const id of queryIds(spec)) {
    const bound = bindParams(spec.queries![id]!.sql, params, chosen);
    await naming(id, () => target.explain(bound.sql, bound.values));
  }
}

async function naming<T>(id: string, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (isDomainError(err)) throw new DomainError(err.code, `query "${id}": ${err.message}`);
    throw err;
  }
}
