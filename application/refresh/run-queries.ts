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
    let result;
    try {
      result = await target.run(bound.sql, undefined, bound.values);
    } catch (err) {
      if (isDomainError(err)) throw new DomainError(err.code, `query "${id}": ${err.message}`);
      throw err;
    }
    data[id] = result.rows;
    rows += result.rows.length;
    if (result.truncated) warnings.push(`query "${id}" returned more than ${result.rows.length} rows; only the first ${result.rows.length} are shown`);
  }
  warnings.push(...columnProblems(spec, data));
  return { data, rows, warnings };
}
