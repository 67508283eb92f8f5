import { invalid } from './errors.js';
import { column, given, got, isPlainObject, refuseUnknownKeys } from './spec-reading.js';

/** A stat tile's extras (issue 34): the previous value it is compared with, and a trend line. */

export const GOOD_DIRECTIONS = ['up', 'down'] as const;
export type GoodDirection = (typeof GOOD_DIRECTIONS)[number];

export interface StatCompare {
  /** Column of the same first row holding the previous value. */
  column: string;
  /** Which way of moving is an improvement; `up` unless said. */
  good: GoodDirection;
}

/** `compare: "prev_mrr"`, or `compare: { "column": "prev_churn", "good": "down" }`, like `format`'s two forms. */
export function parseCompare(value: unknown, where: string, valueColumn: string | undefined): StatCompare {
  let compare: StatCompare;
  if (typeof value === 'string') compare = { column: column(value, where), good: 'up' };
  else if (isPlainObject(value)) {
    refuseUnknownKeys(value, where, ['column', 'good']);
    compare = { column: column(value.column, `${where}.column`), good: 'up' };
    if (given(value.good)) {
      if (!(GOOD_DIRECTIONS as readonly unknown[]).includes(value.good)) throw invalid(`${where}.good must be "up" or "down" (got ${got(value.good)})`);
      compare.good = value.good as GoodDirection;
    }
  } else throw invalid(`${where} must be a column name or { "column": "<column>", "good": "up" | "down" } (got ${got(value)})`);
  if (compare.column === valueColumn) throw invalid(`${where} names the value column itself; it takes the column holding the previous value`);
  return compare;
}
