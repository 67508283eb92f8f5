import type { Cell, Row } from '../../domain/dashboard-spec.js';

/** Numeric types pg hands over as strings (to keep precision) but charts need as numbers. */
const NUMERIC = new Set(['bigint', 'numeric', 'int8', 'decimal', 'money', 'double precision', 'real']);

/** One database value as a JSON-safe cell: dates as ISO text, big numbers as numbers when finite. */
export function toCell(value: unknown, type: string): Cell {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') {
    if (NUMERIC.has(type) || type.startsWith('numeric')) {
      const n = Number(value);
      return Number.isFinite(n) ? n : value;
    }
    return value;
  }
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? null : value.toISOString();
  if (value instanceof Uint8Array) return Buffer.from(value).toString('hex');
  return JSON.stringify(value);
}

export function toRows(rows: Array<Record<string, unknown>>, columns: Array<{ name: string; type: string }>): Row[] {
  return rows.map((row) => {
    const out: Row = {};
    for (const column of columns) out[column.name] = toCell(row[column.name], column.type);
    return out;
  });
}

/** The user's statement wrapped so at most `cap + 1` rows come back; the newline keeps a trailing comment from eating the parenthesis. */
export const capped = (statement: string, cap: number) => `SELECT * FROM (\n${statement}\n) AS dashpub_query LIMIT ${cap + 1}`;
