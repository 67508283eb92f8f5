import { columnsOf, ownEntry, utf8ByteLength, type DashboardSpec, type Row } from './dashboard-spec.js';

/**
 * A spec's outline for an AI client about to change it: ids, types, titles, the first line of each query and
 * the columns results had, but no rows, so reading a large dashboard costs a few hundred bytes before a patch.
 */

/** What the last run returned for one query: its columns and how many rows. */
export interface LastRun {
  columns: string[];
  rows: number;
}

export interface SpecSummary {
  title: string;
  description: string | null;
  /** The spec's size as stored (UTF-8 JSON), inline data included. */
  bytes: number;
  panels: Array<{ id: string; type: string; title: string | null; query: string | null }>;
  /** `columns` and `rows` are null when the query has not run since its SQL was set. */
  queries: Array<{ id: string; sql_first_line: string; sql_lines: number; columns: string[] | null; rows: number | null }>;
  data: Array<{ id: string; columns: string[]; rows: number }>;
  /** As the spec declares them (small by nature); empty until the spec has any. */
  params: unknown[];
  alerts: unknown[];
}

const FIRST_LINE_CHARS = 200;

export function summarizeSpec(spec: DashboardSpec, lastRun: Record<string, LastRun>): SpecSummary {
  const extra = spec as unknown as Record<string, unknown>;
  return {
    title: spec.title,
    description: spec.description ?? null,
    bytes: utf8ByteLength(JSON.stringify(spec)),
    panels: spec.panels.map((panel) => ({ id: panel.id, type: panel.type, title: panel.title ?? null, query: panel.query ?? null })),
    queries: Object.entries(spec.queries ?? {}).map(([id, query]) => {
      const run = ownEntry(lastRun, id);
      return { id, sql_first_line: firstLine(query.sql), sql_lines: query.sql.trim().split('\n').length, columns: run?.columns ?? null, rows: run?.rows ?? null };
    }),
    data: Object.entries(spec.data ?? {}).map(([id, rows]) => ({ id, columns: columnsOf(rows), rows: rows.length })),
    params: Array.isArray(extra.params) ? extra.params : [],
    alerts: Array.isArray(extra.alerts) ? extra.alerts : [],
  };
}

/** The columns and row counts of a rendered `data.json` (`{ renderedAt, data: { <id>: rows } }`); {} when unreadable. */
export function lastRunOf(dataJson: unknown): Record<string, LastRun> {
  const data = (dataJson as { data?: unknown } | null)?.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return {};
  const runs: Record<string, LastRun> = {};
  for (const [id, rows] of Object.entries(data)) {
    if (Array.isArray(rows) && id !== '__proto__') runs[id] = { columns: columnsOf(rows.filter((row): row is Row => row !== null && typeof row === 'object')), rows: rows.length };
  }
  return runs;
}

function firstLine(sql: string): string {
  const line = sql.trim().split('\n')[0]!.trim();
  return line.length > FIRST_LINE_CHARS ? `${line.slice(0, FIRST_LINE_CHARS)}…` : line;
}
