import type { Row } from './dashboard-spec.js';
import { defaultValues, MAX_OPTIONS, parseValue, type DateRange, type ParamValue, type ParamValues, type SpecParam } from './spec-params.js';

/**
 * Parameter values as a page's URL carries them (`?region=South&period=2026-01-01..2026-03-31`, or the
 * form's `period.from` and `period.to`). A value that does not fit keeps its parameter's default and
 * gives a notice naming it; the page never fails over one.
 */

/** How a spec page's parameter form opens: the host finds pages that draw other values by it. */
export const PARAM_FORM_START = '<form class="params"';

export interface ReadValues {
  values: ParamValues;
  /** One sentence per value that was refused. */
  notices: string[];
  /** True when every value is its default: the stored render is the page. */
  defaults: boolean;
  /** The values in one canonical text (parameter order, normalised): the cache key of a render. */
  key: string;
}

/** Options of a parameter whose list comes from a query, when that query's last rows are known. */
export type OptionsOf = (param: SpecParam) => readonly string[] | undefined;

export function readParamValues(params: readonly SpecParam[], pairs: ReadonlyArray<[string, string]>, optionsOf: OptionsOf): ReadValues {
  const values = defaultValues(params);
  const notices: string[] = [];
  for (const param of params) {
    const raw = rawValue(param, pairs);
    if (raw === undefined) continue;
    const label = param.label ?? param.id;
    if (raw === '' || (Array.isArray(raw) && raw.length === 0)) {
      if (param.required) notices.push(`${label}: a value is required; showing the default`);
      else values[param.id] = null;
      continue;
    }
    const parsed = parseValue(param, raw, Array.isArray(param.options) ? param.options : optionsOf(param));
    if (parsed.ok) values[param.id] = parsed.value;
    else notices.push(`${label}: ${parsed.why}; showing the default`);
  }
  const key = valuesKey(params, values);
  return { values, notices, defaults: key === valuesKey(params, defaultValues(params)), key };
}

function rawValue(param: SpecParam, pairs: ReadonlyArray<[string, string]>): unknown {
  const all = (name: string) => pairs.filter(([k]) => k === name).map(([, v]) => v);
  if (param.type === 'multi_select') {
    const chosen = all(param.id);
    return chosen.length === 0 ? undefined : chosen.filter((v) => v !== '');
  }
  if (param.type === 'date_range') {
    const [from] = all(`${param.id}.from`);
    const [to] = all(`${param.id}.to`);
    if (from !== undefined || to !== undefined) return from === '' && to === '' ? '' : { from, to };
  }
  return all(param.id)[0];
}

/** Values in parameter order, lists sorted, so the same choice always gives the same key. */
export function valuesKey(params: readonly SpecParam[], values: ParamValues): string {
  return JSON.stringify(params.map((p) => {
    const value = values[p.id] ?? null;
    return Array.isArray(value) ? [...value].sort() : value;
  }));
}

/** A value as the form and the URL write it. */
export function valueText(value: ParamValue | null): string | string[] {
  if (value === null) return '';
  if (Array.isArray(value)) return value;
  if (typeof value === 'object') return `${(value as DateRange).from}..${(value as DateRange).to}`;
  return String(value);
}

/**
 * The options of a parameter listed by a query: the distinct values of its result's first column, as
 * text, in row order; undefined when the parameter lists its own or the rows are not known.
 */
export function queryOptions(param: SpecParam, data: Record<string, readonly Row[]>): string[] | undefined {
  if (param.options === undefined || Array.isArray(param.options)) return undefined;
  const rows = Object.hasOwn(data, param.options.query) ? data[param.options.query] : undefined;
  if (!rows) return undefined;
  const seen = new Set<string>();
  for (const row of rows) {
    const first = Object.values(row)[0];
    if (first !== undefined && first !== null) seen.add(String(first));
    if (seen.size >= MAX_OPTIONS) break;
  }
  return [...seen];
}
