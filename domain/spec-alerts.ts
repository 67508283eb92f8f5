import { invalid, typeName } from './errors.js';
import { checkId, column, given, got, isPlainObject, refuseUnknownKeys, requiredText } from './spec-reading.js';

/**
 * The spec's `alerts`: a condition on one column of one query's (or inline data's) rows, checked after
 * every refresh. Parsed as strictly as the rest of the spec, one sentence per mistake.
 */

export const ALERT_ROWS = ['first', 'last', 'any'] as const;
export type AlertRow = (typeof ALERT_ROWS)[number];
export const ALERT_OPERATORS = ['>', '<', '>=', '<=', '=', '!='] as const;
export type AlertOperator = (typeof ALERT_OPERATORS)[number];
const ORDERING: readonly string[] = ['>', '<', '>=', '<='];

/** A threshold as `{ "<operator>": value }`, or "changes": the value differs from the last refresh's. */
export type AlertWhen = 'changes' | Partial<Record<AlertOperator, string | number | boolean | null>>;

export interface SpecAlert {
  id: string;
  /** A key of spec.queries or spec.data. */
  query: string;
  column: string;
  row: AlertRow;
  when: AlertWhen;
  message: string;
}

export const MAX_ALERTS = 20;
export const MAX_ALERT_MESSAGE_CHARS = 500;
const ALERT_KEYS = ['id', 'query', 'column', 'row', 'when', 'message'];

/** `names` are the spec's query and data ids; `columnsOf` answers an inline data set's columns (null for a query). */
export function parseAlerts(value: unknown, names: string[], columnsOf: (name: string) => string[] | null): SpecAlert[] {
  if (!Array.isArray(value)) throw invalid(`spec.alerts must be an array of alerts (got ${typeName(value)})`);
  if (value.length > MAX_ALERTS) throw invalid(`spec.alerts has ${value.length} alerts, over the limit of ${MAX_ALERTS}`);
  const seen = new Map<string, number>();
  return value.map((entry, i) => {
    const alert = parseAlert(entry, `spec.alerts[${i}]`, names, columnsOf);
    const first = seen.get(alert.id);
    if (first !== undefined) {
      throw invalid(`spec.alerts[${i}].id ${JSON.stringify(alert.id)} is already used by spec.alerts[${first}]; alert ids must be unique`);
    }
    seen.set(alert.id, i);
    return alert;
  });
}

function parseAlert(value: unknown, where: string, names: string[], columnsOf: (name: string) => string[] | null): SpecAlert {
  if (!isPlainObject(value)) throw invalid(`${where} must be an object (got ${typeName(value)})`);
  refuseUnknownKeys(value, where, ALERT_KEYS);
  for (const key of ['id', 'query', 'column', 'when', 'message']) {
    if (!given(value[key])) throw invalid(`${where}.${key} is required`);
  }
  if (typeof value.id !== 'string') throw invalid(`${where}.id must be a string (got ${typeName(value.id)})`);
  checkId(value.id, `${where}.id`);
  const query = parseQueryName(value.query, `${where}.query`, names);
  const name = column(value.column, `${where}.column`);
  const columns = columnsOf(query);
  if (columns && columns.length > 0 && !columns.includes(name)) {
    throw invalid(`${where}.column ${JSON.stringify(name)} is not a column of spec.data.${query} (columns: ${columns.join(', ')})`);
  }
  const row = parseRow(value.row, `${where}.row`);
  const when = parseWhen(value.when, `${where}.when`);
  if (when === 'changes' && row === 'any') throw invalid(`${where}.when "changes" needs row "first" or "last" (one value to compare with the last refresh's)`);
  const message = requiredText(value.message, `${where}.message`);
  if (message.length > MAX_ALERT_MESSAGE_CHARS) {
    throw invalid(`${where}.message is ${message.length} characters, over the ${MAX_ALERT_MESSAGE_CHARS}-character limit`);
  }
  return { id: value.id, query, column: name, row, when, message };
}

function parseQueryName(value: unknown, where: string, names: string[]): string {
  if (typeof value !== 'string') throw invalid(`${where} must be a string (got ${typeName(value)})`);
  if (!names.includes(value)) {
    const hint = names.length ? `known: ${names.join(', ')}` : 'the spec defines no queries or data';
    throw invalid(`${where} ${JSON.stringify(value)} does not name a key of spec.queries or spec.data (${hint})`);
  }
  return value;
}

/** The last row by default: query results are usually ordered oldest first, so it is the newest value. */
function parseRow(value: unknown, where: string): AlertRow {
  if (!given(value)) return 'last';
  if (!(ALERT_ROWS as readonly unknown[]).includes(value)) throw invalid(`${where} must be one of ${ALERT_ROWS.join(', ')} (got ${got(value)})`);
  return value as AlertRow;
}

function parseWhen(value: unknown, where: string): AlertWhen {
  if (value === 'changes') return 'changes';
  const shape = `{ "<operator>": <value> } with one of ${ALERT_OPERATORS.join(', ')}, or "changes"`;
  if (!isPlainObject(value)) throw invalid(`${where} must be ${shape} (got ${got(value)})`);
  const keys = Object.keys(value);
  if (keys.length !== 1) throw invalid(`${where} must have exactly one operator (got ${keys.length}): ${shape}`);
  const op = keys[0]!;
  if (!(ALERT_OPERATORS as readonly string[]).includes(op)) throw invalid(`${where} has unknown operator ${JSON.stringify(op)} (allowed: ${ALERT_OPERATORS.join(', ')})`);
  const threshold = value[op];
  if (ORDERING.includes(op)) {
    if (typeof threshold !== 'number' || !Number.isFinite(threshold)) throw invalid(`${where}["${op}"] must be a number (got ${got(threshold)})`);
  } else if (threshold !== null && !['string', 'number', 'boolean'].includes(typeof threshold)) {
    throw invalid(`${where}["${op}"] must be a string, number, boolean or null (got ${typeName(threshold)})`);
  }
  return { [op]: threshold } as AlertWhen;
}
