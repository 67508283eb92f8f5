import { invalid, typeName } from './errors.js';
import { parseNumberFormat, type NumberFormat } from './number-format.js';
import { checkSpecSize } from './limits.js';
import { checkPlaceholders, parseParams, type SpecParam } from './spec-params.js';
import {
  checkId, column, field, given, got, isPlainObject, optionalString, refuseUnknownKeys, requiredText,
} from './spec-reading.js';
import { parseLabel, parseTableColumns, parseTimezone, parseY2, type TableColumn } from './spec-display.js';
import { parseAlerts, type SpecAlert } from './spec-alerts.js';
import { parseCompare, type StatCompare } from './spec-stat.js';

/**
 * The dashboard spec of spec-mode publishes: queries, inline data and panels. Parsing is strict on purpose: an AI client
 * gets one precise sentence naming the field to fix, rather than a page that silently ignores it.
 */

export const PANEL_TYPES = ['line', 'bar', 'area', 'pie', 'scatter', 'table', 'stat', 'text'] as const;
export type PanelType = (typeof PANEL_TYPES)[number];
export const CHART_TYPES = ['line', 'bar', 'area', 'pie', 'scatter'] as const;
export type ChartType = (typeof CHART_TYPES)[number];

export type Cell = string | number | boolean | null;
export type Row = Record<string, Cell>;

export interface SpecQuery {
  sql: string;
}

export interface Panel {
  id: string;
  type: PanelType;
  title?: string;
  query?: string;
  x?: string;
  y?: string | string[];
  series?: string;
  value?: string;
  text?: string;
  width?: number;
  /** How the panel's numbers read (issue 34); absent keeps the default formatting. */
  format?: NumberFormat;
  x_title?: string;
  y_title?: string;
  /** Columns of y drawn against a second axis on the right. */
  y2?: string[];
  /** A table's columns in order, with their header labels. */
  columns?: TableColumn[];
  /** A stat's previous value, shown as a delta. */
  compare?: StatCompare;
  /** A stat's column drawn as a small trend line over all rows. */
  sparkline?: string;
}

export interface DashboardSpec {
  title: string;
  description?: string;
  queries?: Record<string, SpecQuery>;
  data?: Record<string, Row[]>;
  params?: SpecParam[];
  panels: Panel[];
  /** IANA zone timestamps are shown in (UTC when absent). */
  timezone?: string;
  alerts?: SpecAlert[];
}

export const MAX_PANELS = 50;
export const MAX_TEXT_CHARS = 20_000;

const SPEC_KEYS = ['title', 'description', 'queries', 'data', 'params', 'panels', 'alerts', 'timezone'];
const PANEL_KEYS = ['id', 'type', 'title', 'query', 'x', 'y', 'series', 'value', 'text', 'width', 'x_title', 'y_title', 'y2', 'columns', 'format', 'compare', 'sparkline'];

/** Which optional panel fields mean something for each type; any other known field is refused by name. */
const APPLIES: Record<PanelType, { required: string[]; optional: string[] }> = {
  line: { required: ['query', 'x', 'y'], optional: ['series', 'x_title', 'y_title', 'y2', 'format'] },
  bar: { required: ['query', 'x', 'y'], optional: ['series', 'x_title', 'y_title', 'y2', 'format'] },
  area: { required: ['query', 'x', 'y'], optional: ['series', 'x_title', 'y_title', 'y2', 'format'] },
  scatter: { required: ['query', 'x', 'y'], optional: ['series', 'x_title', 'y_title', 'format'] },
  pie: { required: ['query', 'x', 'y'], optional: ['format'] },
  table: { required: ['query'], optional: ['columns', 'format'] },
  stat: { required: ['query', 'value'], optional: ['format', 'compare', 'sparkline'] },
  text: { required: ['text'], optional: [] },
};
const ALWAYS = ['id', 'type', 'title', 'width'];

/** The fields a panel of `type` takes (`type` and `id` among the required ones), for schemas and summaries. */
export function panelFields(type: PanelType): { required: string[]; optional: string[] } {
  const rule = APPLIES[type];
  return { required: ['id', 'type', ...rule.required], optional: [...ALWAYS.filter((k) => k !== 'id' && k !== 'type'), ...rule.optional] };
}

/** What to use instead of a field that does not apply, so the refusal teaches the right shape at once. */
function instead(type: PanelType, key: string): string {
  if (type === 'text') return 'a text panel takes only `text` (markdown)';
  if (key === 'text') return `prose goes in a panel of type text`;
  if (key === 'compare') return 'only a stat panel compares its value with a previous one';
  if (key === 'sparkline') return 'only a stat panel draws a sparkline under its value';
  if (type === 'table') return `a table panel takes \`query\` and optionally \`columns\` ([{ id, label, format }])`;
  if (type === 'stat') return key === 'series' ? 'a stat panel shows one value, from the first row' : `a stat panel takes \`value\`, not \`${key}\``;
  if (key === 'value') return `a ${type} panel takes \`y\`, not \`value\``;
  if (key === 'columns') return `a ${type} panel draws \`x\` and \`y\`; \`columns\` labels a table's headers`;
  if (key === 'y2') return `a ${type} panel has one value axis`;
  return `a pie panel takes \`x\` (slice labels) and \`y\` (slice sizes), not \`${key}\``;
}

/** UTF-8 length without allocating a copy of a multi-megabyte string. */
export function utf8ByteLength(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x80) bytes += 1;
    else if (code < 0x800) bytes += 2;
    else if (code >= 0xd800 && code <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/** Accepts the spec as an object or a JSON string; returns a clean copy (nulls on optional fields dropped). */
export function parseDashboardSpec(input: unknown): DashboardSpec {
  let raw: unknown = input;
  if (typeof input === 'string') {
    checkSpecSize(utf8ByteLength(input));
    try {
      raw = JSON.parse(input);
    } catch (err) {
      throw invalid(`spec is not valid JSON: ${(err as Error).message}`);
    }
  } else if (isPlainObject(input)) {
    let json: string;
    try {
      json = JSON.stringify(input);
    } catch {
      throw invalid('spec must be plain JSON data');
    }
    checkSpecSize(utf8ByteLength(json));
  }
  if (!isPlainObject(raw)) throw invalid(`spec must be an object or a JSON string of one (got ${typeName(raw)})`);

  refuseUnknownKeys(raw, 'spec', SPEC_KEYS);
  const spec: DashboardSpec = { title: requiredText(raw.title, 'spec.title'), panels: [] };
  if (given(raw.description)) spec.description = optionalString(raw.description, 'spec.description');
  if (given(raw.queries)) spec.queries = parseQueries(raw.queries);
  if (given(raw.data)) spec.data = parseData(raw.data, spec.queries);
  if (given(raw.params)) spec.params = parseParams(raw.params);
  checkParamSources(spec);
  if (given(raw.timezone)) spec.timezone = parseTimezone(raw.timezone, 'spec.timezone');
  spec.panels = parsePanels(raw.panels, spec);
  if (given(raw.alerts)) spec.alerts = parseAlerts(raw.alerts, [...queryIds(spec), ...Object.keys(spec.data ?? {})], (id) => inlineColumns(spec, id));
  return spec;
}

/** An own entry of a record keyed by user-chosen ids (never something inherited like "constructor"). */
export function ownEntry<T>(record: Record<string, T> | undefined, key: string): T | undefined {
  return record !== undefined && Object.hasOwn(record, key) ? record[key] : undefined;
}

/** Placeholders match parameters, and a parameter's options query names a query or inline data. */
function checkParamSources(spec: DashboardSpec): void {
  checkPlaceholders(spec.params ?? [], spec.queries ?? {});
  for (const [i, param] of (spec.params ?? []).entries()) {
    if (param.options === undefined || Array.isArray(param.options)) continue;
    parseQueryRef(param.options.query, `spec.params[${i}].options.query`, spec);
  }
}

function parseQueries(value: unknown): Record<string, SpecQuery> {
  if (!isPlainObject(value)) throw invalid(`spec.queries must be an object of { "<id>": { "sql": "..." } } (got ${typeName(value)})`);
  const queries: Record<string, SpecQuery> = {};
  for (const [id, query] of Object.entries(value)) {
    checkId(id, 'spec.queries key');
    const where = `spec.queries.${id}`;
    if (!isPlainObject(query)) throw invalid(`${where} must be an object with "sql" (got ${typeName(query)})`);
    refuseUnknownKeys(query, where, ['sql']);
    queries[id] = { sql: requiredText(query.sql, `${where}.sql`) };
  }
  if (Object.keys(queries).length === 0) throw invalid('spec.queries must define at least one query when given');
  return queries;
}

function parseData(value: unknown, queries: Record<string, SpecQuery> | undefined): Record<string, Row[]> {
  if (!isPlainObject(value)) throw invalid(`spec.data must be an object of { "<id>": [rows] } (got ${typeName(value)})`);
  const data: Record<string, Row[]> = {};
  for (const [id, rows] of Object.entries(value)) {
    checkId(id, 'spec.data key');
    const where = `spec.data.${id}`;
    if (queries && Object.hasOwn(queries, id)) {
      throw invalid(`${where} is also defined in spec.queries; an id names either a query or inline data, not both`);
    }
    if (!Array.isArray(rows)) throw invalid(`${where} must be an array of row objects (got ${typeName(rows)})`);
    data[id] = rows.map((row, i) => parseRow(row, `${where}[${i}]`));
  }
  return data;
}

function parseRow(row: unknown, where: string): Row {
  if (!isPlainObject(row)) throw invalid(`${where} must be an object of column values (got ${typeName(row)})`);
  for (const [column, cell] of Object.entries(row)) {
    const kind = typeof cell;
    if (cell !== null && kind !== 'string' && kind !== 'number' && kind !== 'boolean') {
      throw invalid(`${field(where, column)} must be a string, number, boolean or null (got ${typeName(cell)})`);
    }
  }
  return row as Row;
}

function parsePanels(value: unknown, spec: DashboardSpec): Panel[] {
  if (!Array.isArray(value) || value.length === 0) {
    throw invalid(given(value) && !Array.isArray(value)
      ? `spec.panels must be a non-empty array of panels (got ${typeName(value)})`
      : 'spec.panels must be a non-empty array of panels');
  }
  if (value.length > MAX_PANELS) throw invalid(`spec.panels has ${value.length} panels, over the limit of ${MAX_PANELS}`);
  const seen = new Map<string, number>();
  return value.map((entry, i) => {
    const panel = parsePanel(entry, `spec.panels[${i}]`, spec);
    const first = seen.get(panel.id);
    if (first !== undefined) {
      throw invalid(`spec.panels[${i}].id ${JSON.stringify(panel.id)} is already used by spec.panels[${first}]; panel ids must be unique`);
    }
    seen.set(panel.id, i);
    return panel;
  });
}

function parsePanel(value: unknown, where: string, spec: DashboardSpec): Panel {
  if (!isPlainObject(value)) throw invalid(`${where} must be an object (got ${typeName(value)})`);
  // Issue 34 writes the direction beside `compare`; say where it goes rather than only that it is unknown.
  if (Object.hasOwn(value, 'good')) throw invalid(`${where}.good goes inside compare: { "column": "<previous value column>", "good": "up" | "down" }`);
  refuseUnknownKeys(value, where, PANEL_KEYS);

  if (!given(value.id)) throw invalid(`${where}.id is required`);
  if (typeof value.id !== 'string') throw invalid(`${where}.id must be a string (got ${typeName(value.id)})`);
  checkId(value.id, `${where}.id`);
  if (!(PANEL_TYPES as readonly unknown[]).includes(value.type)) {
    throw invalid(given(value.type)
      ? `${where}.type must be one of ${PANEL_TYPES.join(', ')} (got ${got(value.type)})`
      : `${where}.type is required: one of ${PANEL_TYPES.join(', ')}`);
  }
  const type = value.type as PanelType;
  const rule = APPLIES[type];
  for (const key of PANEL_KEYS) {
    if (!given(value[key])) continue;
    if (!ALWAYS.includes(key) && !rule.required.includes(key) && !rule.optional.includes(key)) {
      throw invalid(`${where}.${key} does not apply to a ${type} panel: ${instead(type, key)}`);
    }
  }
  for (const key of rule.required) {
    if (!given(value[key])) throw invalid(`${where}.${key} is required for a ${type} panel`);
  }

  const panel: Panel = { id: value.id, type };
  if (given(value.title)) panel.title = optionalString(value.title, `${where}.title`);
  if (given(value.width)) panel.width = parseWidth(value.width, `${where}.width`);
  if (given(value.text)) {
    panel.text = requiredText(value.text, `${where}.text`);
    if (panel.text.length > MAX_TEXT_CHARS) {
      throw invalid(`${where}.text is ${panel.text.length} characters, over the ${MAX_TEXT_CHARS}-character limit`);
    }
  }
  if (given(value.query)) panel.query = parseQueryRef(value.query, `${where}.query`, spec);
  if (given(value.x)) panel.x = column(value.x, `${where}.x`);
  if (given(value.value)) panel.value = column(value.value, `${where}.value`);
  if (given(value.series)) panel.series = column(value.series, `${where}.series`);
  if (given(value.y)) panel.y = parseY(value.y, `${where}.y`);
  if (given(value.format)) panel.format = parseNumberFormat(value.format, `${where}.format`);
  readDisplayFields(value, where, panel);

  if (Array.isArray(panel.y) && (type === 'pie' || panel.series !== undefined)) {
    const why = type === 'pie' ? 'for a pie panel' : 'when series is set';
    if (panel.y.length !== 1) throw invalid(`${where}.y must be a single column name ${why}`);
  }
  if (panel.query !== undefined) checkInlineColumns(panel, where, spec);
  return panel;
}

function readDisplayFields(value: Record<string, unknown>, where: string, panel: Panel): void {
  if (given(value.x_title)) panel.x_title = parseLabel(value.x_title, `${where}.x_title`);
  if (given(value.y_title)) panel.y_title = parseLabel(value.y_title, `${where}.y_title`);
  if (given(value.y2)) panel.y2 = parseY2(value.y2, `${where}.y2`, yColumns(panel), panel.series);
  if (given(value.columns)) panel.columns = parseTableColumns(value.columns, `${where}.columns`);
  if (given(value.compare)) panel.compare = parseCompare(value.compare, `${where}.compare`, panel.value);
  if (given(value.sparkline)) panel.sparkline = column(value.sparkline, `${where}.sparkline`);
}

function parseWidth(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > 12) {
    throw invalid(`${where} must be an integer from 1 to 12 (got ${typeof value === 'number' ? value : got(value)})`);
  }
  return value;
}

function parseY(value: unknown, where: string): string | string[] {
  if (typeof value === 'string') return column(value, where);
  if (!Array.isArray(value) || value.length === 0) {
    throw invalid(`${where} must be a column name or a non-empty list of column names (got ${got(value)})`);
  }
  const names = value.map((name, i) => column(name, `${where}[${i}]`));
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) throw invalid(`${where} lists column ${JSON.stringify(twice)} twice`);
  return names;
}

function parseQueryRef(value: unknown, where: string, spec: DashboardSpec): string {
  if (typeof value !== 'string') throw invalid(`${where} must be a string (got ${typeName(value)})`);
  const known = [...Object.keys(spec.queries ?? {}), ...Object.keys(spec.data ?? {})];
  if (!known.includes(value)) {
    const hint = known.length ? `known: ${known.join(', ')}` : 'the spec defines no queries or data';
    throw invalid(`${where} ${JSON.stringify(value)} does not name a key of spec.queries or spec.data (${hint})`);
  }
  return value;
}

/** Inline data is known at publish time, so a misspelt column is refused now rather than drawn as a blank chart. */
function checkInlineColumns(panel: Panel, where: string, spec: DashboardSpec): void {
  const rows = ownEntry(spec.data, panel.query!);
  if (!rows || rows.length === 0) return;
  const columns = columnsOf(rows);
  for (const [key, name] of panelColumnRefs(panel)) {
    if (!columns.includes(name)) {
      throw invalid(`${where}.${key} ${JSON.stringify(name)} is not a column of spec.data.${panel.query} (columns: ${columns.join(', ')})`);
    }
  }
}

/** The y columns of a panel as a list, whichever form the spec used. */
export function yColumns(panel: Panel): string[] {
  if (panel.y === undefined) return [];
  return Array.isArray(panel.y) ? panel.y : [panel.y];
}

/** Every column a panel reads, with the field naming it, in field order. */
export function panelColumnRefs(panel: Panel): Array<[string, string]> {
  const refs: Array<[string, string]> = [];
  if (panel.x !== undefined) refs.push(['x', panel.x]);
  const ys = yColumns(panel);
  ys.forEach((name, i) => refs.push([Array.isArray(panel.y) ? `y[${i}]` : 'y', name]));
  if (panel.series !== undefined) refs.push(['series', panel.series]);
  if (panel.value !== undefined) refs.push(['value', panel.value]);
  if (panel.compare !== undefined) refs.push(['compare', panel.compare.column]);
  if (panel.sparkline !== undefined) refs.push(['sparkline', panel.sparkline]);
  panel.columns?.forEach(({ id }, i) => refs.push([`columns[${i}].id`, id]));
  return refs;
}

/** An inline data set's columns, or null when `id` names a query (its columns are known only once it runs). */
function inlineColumns(spec: DashboardSpec, id: string): string[] | null {
  const rows = ownEntry(spec.data, id);
  return rows ? columnsOf(rows) : null;
}

/** Column names in first-seen order across rows (rows need not share one shape). */
export function columnsOf(rows: readonly Row[]): string[] {
  const seen = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) seen.add(key);
  return [...seen];
}

/**
 * Columns that panels read but query results lack: warnings for a publish or refresh, since query
 * columns are only known once the SQL has run.
 */
export function columnProblems(spec: DashboardSpec, data: Record<string, readonly Row[]>): string[] {
  const problems: string[] = [];
  for (const panel of spec.panels) {
    const rows = panel.query === undefined ? undefined : ownEntry(data, panel.query);
    if (!rows || rows.length === 0) continue;
    const columns = columnsOf(rows);
    for (const [key, name] of panelColumnRefs(panel)) {
      if (!columns.includes(name)) {
        problems.push(`panel "${panel.id}": ${key} column ${JSON.stringify(name)} is not in the result of "${panel.query}" (columns: ${columns.join(', ')})`);
      }
    }
  }
  return problems;
}

export const RENDERED_PAGE = 'index.html';
export const RENDERED_DATA = 'data.json';
/** The files a spec renders to; a file published over one of them replaces the render. */
export const RENDERED_FILES: readonly string[] = [RENDERED_PAGE, RENDERED_DATA];

/** A spec with queries runs on its connection; one with only inline data is static. */
export function isRefreshable(spec: DashboardSpec): boolean {
  return queryIds(spec).length > 0;
}

/**
 * The same question on a spec as a version stores it, without parsing it again: any non-empty `queries`
 * object (parsing refuses anything else, so an array only comes from outside it). What a dashboard's
 * `refreshable` answers; the stored column `dashboard_versions.refreshable` (migration 1700000015700) is the
 * same rule in SQL, and the dashboard store's contract tests hold the two together.
 */
export function isRefreshableSpec(spec: unknown): boolean {
  if (spec === null || typeof spec !== 'object') return false;
  const queries = (spec as { queries?: unknown }).queries;
  return queries !== null && typeof queries === 'object' && !Array.isArray(queries) && Object.keys(queries).length > 0;
}

export function queryIds(spec: DashboardSpec): string[] {
  return Object.keys(spec.queries ?? {});
}

/** Grid columns a panel spans when the spec leaves `width` out: small tiles for stats, full rows for text and tables. */
export function panelWidth(panel: Panel): number {
  if (panel.width !== undefined) return panel.width;
  if (panel.type === 'stat') return 3;
  if (panel.type === 'text' || panel.type === 'table') return 12;
  return 6;
}

export function isChartType(type: PanelType): type is ChartType {
  return (CHART_TYPES as readonly string[]).includes(type);
}
