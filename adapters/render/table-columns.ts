import type { Panel } from '../../domain/dashboard-spec.js';
import type { TableColumn } from '../../domain/spec-display.js';
import { columnTexts, toNumber } from './format.js';

export const MAX_TABLE_COLUMNS = 40;

/** A timestamp that names its instant: an offset or Z, as JSON dates and timestamptz values carry. */
const INSTANT = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)$/;

export type ShownColumn = TableColumn;

/** The columns a table shows, in order: the spec's list with its labels, or every column under its name. */
export function shownColumns(panel: Panel, all: readonly string[]): { columns: ShownColumn[]; cut: boolean } {
  const listed = panel.columns ?? all.map((id) => ({ id, label: id }));
  return { columns: listed.slice(0, MAX_TABLE_COLUMNS), cut: panel.columns === undefined && all.length > MAX_TABLE_COLUMNS };
}

/**
 * Whether a column reads as numbers (right-aligned, formatted): every value a number or empty; with its own
 * format, numeric text too, as PostgreSQL sends numeric and bigint values as strings.
 */
export function isNumberColumn(column: ShownColumn, values: readonly unknown[]): boolean {
  return values.every(
    (v) => v === null || v === undefined || typeof v === 'number' || typeof v === 'bigint' || (column.format !== undefined && typeof v === 'string' && toNumber(v) !== null),
  );
}

const wallClocks = new Map<string, Intl.DateTimeFormat>();

/** Year to second of `at` on the clocks of `zone`, as "2025-03-30 02:30:00". */
function wallTime(at: Date, zone: string): string {
  let clock = wallClocks.get(zone);
  if (clock === undefined) {
    const two = '2-digit' as const;
    clock = new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: two, day: two, hour: two, minute: two, second: two, hourCycle: 'h23' });
    wallClocks.set(zone, clock);
  }
  const part = Object.fromEntries(clock.formatToParts(at).map((p) => [p.type, p.value]));
  return `${part.year}-${part.month}-${part.day} ${part.hour}:${part.minute}:${part.second}`;
}

/**
 * A column's display texts with its instants moved to `zone`, at the precision the column shows; `zoned`
 * tells whether any was, so the header can name the zone. Dates alone (every value at midnight) are
 * calendar days, not instants, and stay as written.
 */
export function zonedColumnTexts(values: readonly unknown[], zone: string): { texts: string[]; zoned: boolean } {
  const texts = columnTexts(values);
  let zoned = false;
  const moved = values.map((value, i) => {
    const text = texts[i]!;
    if (text.length <= 10) return text;
    const at = value instanceof Date ? value : typeof value === 'string' && INSTANT.test(value) ? new Date(value) : null;
    if (at === null || Number.isNaN(at.getTime())) return text;
    zoned = true;
    return wallTime(at, zone).slice(0, text.length >= 19 ? 19 : 16);
  });
  return { texts: moved, zoned };
}
