import { invalid, typeName } from './errors.js';
import { rewritePlaceholders, scanPlaceholders, type Placeholder } from './sql-placeholders.js';
import { given, got, isPlainObject, optionalString, refuseUnknownKeys, requiredText } from './spec-reading.js';

/**
 * A spec's `params`: typed values a viewer picks in the page's form, bound into the queries as real SQL
 * parameters. Declared here, checked against the placeholders the queries use, and read from a URL's query
 * string with a notice for any value that does not fit (the defaults stand in for it).
 */

export const PARAM_TYPES = ['date', 'date_range', 'number', 'text', 'select', 'multi_select'] as const;
export type ParamType = (typeof PARAM_TYPES)[number];

export interface DateRange {
  from: string;
  to: string;
}
export type ParamValue = string | number | string[] | DateRange;

export interface SpecParam {
  id: string;
  type: ParamType;
  label?: string;
  default?: ParamValue;
  required?: boolean;
  min?: number;
  max?: number;
  pattern?: string;
  options?: string[] | { query: string };
}

/** Each parameter's value, null where it has none (bound as SQL NULL). */
export type ParamValues = Record<string, ParamValue | null>;

export const MAX_PARAMS = 20;
export const MAX_OPTIONS = 500;
export const MAX_TEXT_VALUE = 200;
export const MAX_PATTERN = 200;
/** Placeholder names are SQL-like identifiers, so `:a-b` stays a subtraction. */
export const PARAM_ID = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const RANGE_SEPARATOR = '..';

const PARAM_KEYS = ['id', 'type', 'label', 'default', 'required', 'min', 'max', 'pattern', 'options'];
/** The fields that only some parameter types take (every type takes the others). */
export const ONLY: Record<string, ParamType[]> = {
  min: ['number'],
  max: ['number'],
  pattern: ['text'],
  options: ['select', 'multi_select'],
};

/** `where` names the list in refusals: `spec.params` in a spec, `params` as validate_cube_sql's argument. */
export function parseParams(value: unknown, where = 'spec.params'): SpecParam[] {
  if (!Array.isArray(value)) throw invalid(`${where} must be an array of parameters (got ${typeName(value)})`);
  if (value.length > MAX_PARAMS) throw invalid(`${where} has ${value.length} parameters, over the limit of ${MAX_PARAMS}`);
  const seen = new Map<string, number>();
  return value.map((entry, i) => {
    const param = parseParam(entry, `${where}[${i}]`);
    const first = seen.get(param.id);
    if (first !== undefined) throw invalid(`${where}[${i}].id ${JSON.stringify(param.id)} is already used by ${where}[${first}]`);
    seen.set(param.id, i);
    return param;
  });
}

/** The params of a spec as a version stores it (parsed at publish), read without parsing the rest again. */
export function storedParams(spec: unknown): SpecParam[] {
  const params = isPlainObject(spec) ? spec.params : undefined;
  return params === undefined || params === null ? [] : parseParams(params);
}

function parseParam(value: unknown, where: string): SpecParam {
  if (!isPlainObject(value)) throw invalid(`${where} must be an object (got ${typeName(value)})`);
  refuseUnknownKeys(value, where, PARAM_KEYS);
  const id = requiredText(value.id, `${where}.id`);
  if (!PARAM_ID.test(id)) throw invalid(`${where}.id ${JSON.stringify(id)} must be a letter or _ then letters, digits or _ (1 to 64 characters), as it is written :${id} in SQL`);
  if (!(PARAM_TYPES as readonly unknown[]).includes(value.type)) {
    throw invalid(given(value.type) ? `${where}.type must be one of ${PARAM_TYPES.join(', ')} (got ${got(value.type)})` : `${where}.type is required: one of ${PARAM_TYPES.join(', ')}`);
  }
  const param: SpecParam = { id, type: value.type as ParamType };
  for (const [key, types] of Object.entries(ONLY)) {
    if (given(value[key]) && !types.includes(param.type)) throw invalid(`${where}.${key} does not apply to a ${param.type} parameter`);
  }
  if (given(value.label)) param.label = optionalString(value.label, `${where}.label`);
  if (given(value.required)) {
    if (typeof value.required !== 'boolean') throw invalid(`${where}.required must be true or false (got ${got(value.required)})`);
    param.required = value.required;
  }
  if (given(value.min)) param.min = finite(value.min, `${where}.min`);
  if (given(value.max)) param.max = finite(value.max, `${where}.max`);
  if (param.min !== undefined && param.max !== undefined && param.min > param.max) throw invalid(`${where}.min ${param.min} is above ${where}.max ${param.max}`);
  if (given(value.pattern)) param.pattern = parsePattern(value.pattern, `${where}.pattern`);
  if (param.type === 'select' || param.type === 'multi_select') param.options = parseOptions(value.options, `${where}.options`);
  if (given(value.default)) {
    const parsed = parseValue(param, value.default, param.options);
    if (!parsed.ok) throw invalid(`${where}.default ${parsed.why}`);
    param.default = parsed.value;
  } else if (param.required) {
    throw invalid(`${where}.default is required for a required parameter: scheduled refreshes render the defaults`);
  }
  return param;
}

function finite(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalid(`${where} must be a number (got ${got(value)})`);
  return value;
}

function parsePattern(value: unknown, where: string): string {
  const pattern = requiredText(value, where);
  if (pattern.length > MAX_PATTERN) throw invalid(`${where} is ${pattern.length} characters, over the ${MAX_PATTERN}-character limit`);
  try {
    new RegExp(`^(?:${pattern})$`, 'u');
  } catch (err) {
    throw invalid(`${where} is not a valid regular expression: ${(err as Error).message}`);
  }
  return pattern;
}

function parseOptions(value: unknown, where: string): string[] | { query: string } {
  if (isPlainObject(value)) {
    refuseUnknownKeys(value, where, ['query']);
    return { query: requiredText(value.query, `${where}.query`) };
  }
  if (!Array.isArray(value) || value.length === 0) {
    throw invalid(`${where} must be a non-empty list of strings or { "query": "<id>" } (got ${given(value) ? got(value) : 'nothing'})`);
  }
  if (value.length > MAX_OPTIONS) throw invalid(`${where} has ${value.length} options, over the limit of ${MAX_OPTIONS}`);
  return value.map((option, i) => {
    if (typeof option !== 'string') throw invalid(`${where}[${i}] must be a string (got ${typeName(option)})`);
    return option;
  });
}

type Parsed = { ok: true; value: ParamValue } | { ok: false; why: string };

/**
 * One value for one parameter, from the spec (JSON) or a query string (text); `options` is the list to
 * choose from when known (a query's options are known once it has run).
 */
export function parseValue(param: SpecParam, raw: unknown, options: readonly string[] | { query: string } | undefined): Parsed {
  const fail = (why: string): Parsed => ({ ok: false, why });
  const shown = typeof raw === 'string' ? JSON.stringify(raw) : got(raw);
  switch (param.type) {
    case 'date':
      return typeof raw === 'string' && isDate(raw) ? { ok: true, value: raw } : fail(`${shown} is not a date (YYYY-MM-DD)`);
    case 'date_range':
      return parseRange(raw, shown);
    case 'number': {
      const n = typeof raw === 'number' ? raw : typeof raw === 'string' && /^-?\d+(\.\d+)?$/.test(raw.trim()) ? Number(raw) : NaN;
      if (!Number.isFinite(n)) return fail(`${shown} is not a number`);
      if (param.min !== undefined && n < param.min) return fail(`${shown} is below the minimum ${param.min}`);
      if (param.max !== undefined && n > param.max) return fail(`${shown} is above the maximum ${param.max}`);
      return { ok: true, value: n };
    }
    case 'text':
      if (typeof raw !== 'string') return fail(`${shown} is not text`);
      if (raw.length > MAX_TEXT_VALUE) return fail(`is ${raw.length} characters, over the ${MAX_TEXT_VALUE}-character limit`);
      if (param.pattern !== undefined && !new RegExp(`^(?:${param.pattern})$`, 'u').test(raw)) return fail(`${shown} does not match the pattern ${param.pattern}`);
      return { ok: true, value: raw };
    case 'select':
      if (typeof raw !== 'string') return fail(`${shown} is not text`);
      return Array.isArray(options) && !options.includes(raw) ? fail(`${shown} is not one of the options`) : { ok: true, value: raw };
    case 'multi_select': {
      const list = typeof raw === 'string' ? [raw] : raw;
      if (!Array.isArray(list) || list.some((v) => typeof v !== 'string')) return fail(`${shown} is not a list of text`);
      const outside = Array.isArray(options) ? list.find((v) => !options.includes(v as string)) : undefined;
      if (outside !== undefined) return fail(`${JSON.stringify(outside)} is not one of the options`);
      return { ok: true, value: [...new Set(list as string[])] };
    }
  }
}

function parseRange(raw: unknown, shown: string): Parsed {
  let from: unknown;
  let to: unknown;
  if (typeof raw === 'string' && raw.includes(RANGE_SEPARATOR)) [from, to] = raw.split(RANGE_SEPARATOR, 2);
  else if (isPlainObject(raw)) ({ from, to } = raw);
  if (typeof from !== 'string' || typeof to !== 'string' || !isDate(from) || !isDate(to)) {
    return { ok: false, why: `${shown} is not a date range (YYYY-MM-DD..YYYY-MM-DD)` };
  }
  if (from > to) return { ok: false, why: `${shown} ends before it starts` };
  return { ok: true, value: { from, to } };
}

function isDate(text: string): boolean {
  const match = DATE.exec(text);
  if (!match) return false;
  const [, y, m, d] = match.map(Number) as [number, number, number, number];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** Each parameter's default, null where it has none. */
export function defaultValues(params: readonly SpecParam[]): ParamValues {
  const values: ParamValues = {};
  for (const param of params) values[param.id] = param.default ?? null;
  return values;
}

/** The placeholder as the error sentences write it. */
const written = (p: Placeholder) => `:${p.name}${p.part === undefined ? '' : `.${p.part}`}`;

/**
 * Every placeholder of every query names a declared parameter (a date range by `.from` and `.to`), every
 * parameter is used by some query, and no query that lists options takes a parameter.
 */
export function checkPlaceholders(params: readonly SpecParam[], queries: Record<string, { sql: string }>): void {
  const used = new Set<string>();
  for (const [id, query] of Object.entries(queries)) {
    for (const name of checkQueryPlaceholders(params, query.sql, `spec.queries.${id}.sql`, 'spec.params')) used.add(name);
  }
  for (const [i, param] of params.entries()) {
    if (!used.has(param.id)) throw invalid(`spec.params[${i}] ${JSON.stringify(param.id)} is never used by a query; ${useHint(param)}`);
    const source = param.options !== undefined && !Array.isArray(param.options) ? param.options.query : undefined;
    if (source !== undefined && Object.hasOwn(queries, source) && scanPlaceholders(queries[source]!.sql).length > 0) {
      throw invalid(`spec.params[${i}].options.query ${JSON.stringify(source)} uses a parameter; the query listing options cannot take one`);
    }
  }
}

const useHint = (param: SpecParam) =>
  `write it as :${param.id}${param.type === 'date_range' ? `.from and :${param.id}.to` : ''} in one, or remove it`;

/** The placeholders of one query against the parameters (`where` and `paramsWhere` name them in refusals); returns the ids it uses. */
export function checkQueryPlaceholders(params: readonly SpecParam[], sql: string, where: string, paramsWhere: string): Set<string> {
  const byId = new Map(params.map((p) => [p.id, p]));
  const used = new Set<string>();
  for (const placeholder of scanPlaceholders(sql)) {
    const uses = `${where} uses ${written(placeholder)}`;
    const param = byId.get(placeholder.name);
    if (!param) throw invalid(`${uses}, but ${paramsWhere} declares no parameter ${JSON.stringify(placeholder.name)}`);
    if (param.type === 'date_range' && placeholder.part !== 'from' && placeholder.part !== 'to') {
      throw invalid(`${uses}; a date_range parameter is used as :${param.id}.from and :${param.id}.to`);
    }
    if (param.type !== 'date_range' && placeholder.part !== undefined) throw invalid(`${uses}; only a date_range parameter has .from and .to`);
    used.add(param.id);
  }
  return used;
}

export type BindValue = string | null;
export interface BoundSql {
  sql: string;
  values: BindValue[];
}

const CASTS: Record<ParamType, string> = {
  date: 'date',
  date_range: 'date',
  number: 'numeric',
  text: 'text',
  select: 'text',
  multi_select: 'text[]',
};

/**
 * The query with each placeholder as a typed positional parameter (`($1::date)`), and the values in text
 * form beside it. A placeholder naming no parameter is left as written (publish refuses it before this).
 */
export function bindParams(sql: string, params: readonly SpecParam[], values: ParamValues): BoundSql {
  const byId = new Map(params.map((p) => [p.id, p]));
  const slots = new Map<string, number>();
  const bound: BindValue[] = [];
  const text = rewritePlaceholders(sql, (placeholder) => {
    const param = byId.get(placeholder.name);
    if (!param) return written(placeholder);
    const key = written(placeholder);
    let slot = slots.get(key);
    if (slot === undefined) {
      bound.push(bindValue(param, values[param.id] ?? null, placeholder.part));
      slot = bound.length;
      slots.set(key, slot);
    }
    return `($${slot}::${CASTS[param.type]})`;
  });
  return { sql: text, values: bound };
}

function bindValue(param: SpecParam, value: ParamValue | null, part: string | undefined): BindValue {
  if (value === null) return null;
  if (param.type === 'date_range') return (value as DateRange)[part === 'to' ? 'to' : 'from'];
  if (Array.isArray(value)) return arrayLiteral(value);
  return String(value);
}

/** A PostgreSQL array literal of text elements, each quoted, so a comma or brace inside one stays in it. */
function arrayLiteral(items: readonly string[]): string {
  return `{${items.map((item) => `"${item.replace(/[\\"]/g, (c) => `\\${c}`)}"`).join(',')}}`;
}
