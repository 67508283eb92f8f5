import { invalid } from './errors.js';
import { column, given, got, isPlainObject, optionalString, refuseUnknownKeys } from './spec-reading.js';
import { parseNumberFormat, type NumberFormat } from './number-format.js';

/** The spec's presentation fields: axis titles, a second y axis, table column labels and the time zone. */

export interface TableColumn {
  id: string;
  label: string;
  /** How this column's numbers read, over the panel's `format`. */
  format?: NumberFormat;
}

export const MAX_LABEL_CHARS = 200;
export const MAX_LISTED_COLUMNS = 40;

/** An axis title or a column label: short text drawn as is. */
export function parseLabel(value: unknown, where: string): string {
  const text = optionalString(value, where);
  if (text.length > MAX_LABEL_CHARS) throw invalid(`${where} is ${text.length} characters, over the ${MAX_LABEL_CHARS}-character limit`);
  return text;
}

/** Columns of `y` drawn against a second axis on the right; at least one y column stays on the left. */
export function parseY2(value: unknown, where: string, ys: readonly string[], series: string | undefined): string[] {
  if (series !== undefined) throw invalid(`${where} does not apply when series is set: every series shares the one y column`);
  if (!Array.isArray(value) || value.length === 0) throw invalid(`${where} must be a non-empty list of column names from y (got ${got(value)})`);
  const names = value.map((name, i) => column(name, `${where}[${i}]`));
  names.forEach((name, i) => {
    if (!ys.includes(name)) throw invalid(`${where}[${i}] ${JSON.stringify(name)} must also be listed in y (y: ${ys.join(', ')})`);
    if (names.indexOf(name) !== i) throw invalid(`${where} lists column ${JSON.stringify(name)} twice`);
  });
  if (names.length === ys.length) throw invalid(`${where} must leave at least one column of y on the left axis`);
  return names;
}

/** The columns a table shows, in order, each with its header label (the column name when none is given) and number format. */
export function parseTableColumns(value: unknown, where: string): TableColumn[] {
  if (!Array.isArray(value) || value.length === 0) throw invalid(`${where} must be a non-empty list of { "id": "<column>", "label": "<header>" } (got ${got(value)})`);
  if (value.length > MAX_LISTED_COLUMNS) throw invalid(`${where} has ${value.length} columns, over the limit of ${MAX_LISTED_COLUMNS}`);
  const columns = value.map((entry, i) => {
    const at = `${where}[${i}]`;
    if (!isPlainObject(entry)) throw invalid(`${at} must be an object { "id": "<column>", "label": "<header>" } (got ${got(entry)})`);
    refuseUnknownKeys(entry, at, ['id', 'label', 'format']);
    const id = column(entry.id, `${at}.id`);
    const listed: TableColumn = { id, label: given(entry.label) ? parseLabel(entry.label, `${at}.label`) : id };
    if (given(entry.format)) listed.format = parseNumberFormat(entry.format, `${at}.format`);
    return listed;
  });
  columns.forEach(({ id }, i) => {
    if (columns.findIndex((c) => c.id === id) !== i) throw invalid(`${where} lists column ${JSON.stringify(id)} twice`);
  });
  return columns;
}

/** An IANA zone the page shows timestamps in; the runtime's zone database is the judge. */
export function parseTimezone(value: unknown, where: string): string {
  const refusal = () => invalid(`${where} must be an IANA time zone such as "UTC" or "Europe/Paris" (got ${got(value)})`);
  if (typeof value !== 'string' || value === '') throw refusal();
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
  } catch {
    throw refusal();
  }
  return value;
}
