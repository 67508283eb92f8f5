import type { Cell, Row } from '../../domain/dashboard-spec.js';
import { DomainError } from '../../domain/errors.js';

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

/** Bytes one cell and one result may carry back from a query; over them, a clear refusal or a cut, never an out-of-memory. */
export interface ByteCaps {
  cellBytes: number;
  resultBytes: number;
}
export const DEFAULT_BYTE_CAPS: ByteCaps = { cellBytes: 1024 * 1024, resultBytes: 16 * 1024 * 1024 };

const MIB = 1024 * 1024;
const sizeText = (bytes: number) => (bytes % MIB === 0 ? `${bytes / MIB} MiB` : `${bytes} bytes`);

const CELL_CAP_MARK = ':dashpub_cell_cap:';

/**
 * The user's statement wrapped so the database itself measures every cell before sending it: the first
 * oversize cell stops the query (see cellCapRefusal), and rows stop once their running byte total passes
 * the result cap (the first row past it is sent, to tell a cut apart). `LIMIT` keeps the inner scan from
 * being flattened, so each cell is computed once.
 */
export function byteCapped(statement: string, columnCount: number, rowCap: number, caps: ByteCaps): string {
  if (columnCount === 0) return capped(statement, rowCap);
  const cols = Array.from({ length: columnCount }, (_, i) => `c${i + 1}`);
  const size = (c: string) => `pg_column_size(q.${c})`;
  const cells = cols.map((c) => `CASE WHEN ${size(c)} <= ${caps.cellBytes} THEN q.${c} END AS ${c}`);
  // The first oversize cell stops the query with a cast error naming its column (refused by cellCapRefusal);
  // the text is built from the size so it is never folded into a constant at planning.
  const big = `CASE ${cols.map((c, i) => `WHEN ${size(c)} > ${caps.cellBytes} THEN (${i + 1} || '${CELL_CAP_MARK}' || ${size(c)})::int`).join(' ')} ELSE 0 END AS dashpub_big`;
  const bytes = `(${cols.map((c) => `coalesce(${size(c)}, 0)`).join(' + ')})::bigint AS dashpub_bytes`;
  return `SELECT * FROM (
  SELECT s.*, sum(s.dashpub_bytes) OVER (ROWS UNBOUNDED PRECEDING) AS dashpub_total FROM (
    SELECT ${[...cells, big, bytes].join(', ')}
      FROM (SELECT * FROM (\n${statement}\n) AS dashpub_query LIMIT ${rowCap + 1}) AS q(${cols.join(', ')})
  ) AS s
) AS w WHERE w.dashpub_total - w.dashpub_bytes <= ${caps.resultBytes}`;
}

/** Rows of a byteCapped() query under their own column names, cut at the row cap or where the byte total passed the result cap. */
export function cappedRows(
  raw: Array<Record<string, unknown>>,
  columns: Array<{ name: string; type: string }>,
  rowCap: number,
  caps: ByteCaps,
): { rows: Row[]; truncated: boolean } {
  const kept = raw.filter((r) => Number(r.dashpub_total ?? 0) <= caps.resultBytes);
  const truncated = kept.length < raw.length || kept.length > rowCap;
  const rows = kept.slice(0, rowCap);
  if (rows.length === 0 && raw.length > 0 && columns.length > 0) {
    throw new DomainError('invalid_argument', `query failed: its first row is larger than ${sizeText(caps.resultBytes)}, the cap for one result; select fewer or shorter columns`);
  }
  const named = rows.map((r) => {
    const out: Record<string, unknown> = {};
    columns.forEach((c, i) => (out[c.name] = r[`c${i + 1}`]));
    return out;
  });
  return { rows: toRows(named, columns), truncated };
}

/** The refusal for a query a byteCapped() wrapper stopped at an oversize cell; null for any other failure. */
export function cellCapRefusal(message: string, columns: Array<{ name: string }>, caps: ByteCaps): DomainError | null {
  const match = new RegExp(`"(\\d+)${CELL_CAP_MARK}\\d+"`).exec(message);
  const column = match ? columns[Number(match[1]) - 1] : undefined;
  if (!column) return null;
  return new DomainError(
    'invalid_argument',
    `query failed: a value in column "${column.name}" is larger than ${sizeText(caps.cellBytes)}, the cap for one cell; select a shorter value, for example left(${column.name}::text, 1000)`,
  );
}
