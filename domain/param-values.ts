import { defaultValues, parseValue, type DateRange, type ParamValue, type ParamValues, type SpecParam } from './spec-params.js';

/**
 * Parameter values as a page's URL carries them (`?region=South&period=2026-01-01..2026-03-31`, or the
 * form's `period.from` and `period.to`). A value that does not fit keeps its parameter's default and
 * gives a notice naming it; the page never fails over one.
 */

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
