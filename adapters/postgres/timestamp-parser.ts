import pg from 'pg';

/**
 * `timestamptz` values as `pg` hands them to the store, parsed faster in the one shape PostgreSQL writes them
 * in (DateStyle ISO): `YYYY-MM-DD HH:MM:SS[.ffffff]±HH[:MM[:SS]]`. pg's own parser (postgres-date) runs three
 * regular expressions and a split per value; a listing page of 51 rows has 102 timestamps, and parsing them
 * was about a sixth of the page's time in the store (docs/decisions/0035-timestamps-parsed-by-position.md).
 * Anything else — years before 100 or past 9999, BC, infinity, a malformed value — goes to pg's parser, so
 * every value yields what it would have: the same milliseconds (the fraction truncated, as Date.UTC does with
 * postgres-date's fractional milliseconds) or the same non-Date.
 */
const TIMESTAMPTZ = 1184;
const libraryParser = pg.types.getTypeParser(TIMESTAMPTZ, 'text') as (text: string) => unknown;

const DASH = 45;
const PLUS = 43;
const COLON = 58;
const DOT = 46;
const SPACE = 32;

/** The digit at `i`, or -1 when it is not one. */
function digit(text: string, i: number): number {
  const d = text.charCodeAt(i) - 48;
  return d >= 0 && d <= 9 ? d : -1;
}

/** The two digits at `i` as a number, or -1. */
function two(text: string, i: number): number {
  const a = digit(text, i);
  const b = digit(text, i + 1);
  return a < 0 || b < 0 ? -1 : a * 10 + b;
}

export function parseTimestamptz(text: string): unknown {
  const n = text.length;
  if (n < 22 || text.charCodeAt(4) !== DASH || text.charCodeAt(7) !== DASH || text.charCodeAt(10) !== SPACE) return libraryParser(text);
  if (text.charCodeAt(13) !== COLON || text.charCodeAt(16) !== COLON) return libraryParser(text);
  const century = two(text, 0);
  const yy = two(text, 2);
  const month = two(text, 5);
  const day = two(text, 8);
  const hour = two(text, 11);
  const minute = two(text, 14);
  const second = two(text, 17);
  if (century < 1 || yy < 0 || month < 0 || day < 0 || hour < 0 || minute < 0 || second < 0) return libraryParser(text);
  let i = 19;
  let ms = 0;
  if (text.charCodeAt(i) === DOT) {
    // Milliseconds are the fraction's first three digits; the rest (microseconds) are dropped.
    let place = 100;
    for (i++; i < n; i++) {
      const d = digit(text, i);
      if (d < 0) break;
      ms += d * place;
      place = place >= 10 ? place / 10 : 0;
    }
    if (i === 20) return libraryParser(text);
  }
  const sign = text.charCodeAt(i);
  if (sign !== PLUS && sign !== DASH) return libraryParser(text);
  const zoneHours = two(text, i + 1);
  let zoneMinutes = 0;
  let zoneSeconds = 0;
  i += 3;
  if (i < n && text.charCodeAt(i) === COLON) {
    zoneMinutes = two(text, i + 1);
    i += 3;
    if (i < n && text.charCodeAt(i) === COLON) {
      zoneSeconds = two(text, i + 1);
      i += 3;
    }
  }
  if (i !== n || zoneHours < 0 || zoneMinutes < 0 || zoneSeconds < 0) return libraryParser(text);
  const offsetMs = (sign === PLUS ? 1 : -1) * (zoneHours * 3600 + zoneMinutes * 60 + zoneSeconds) * 1000;
  return new Date(Date.UTC(century * 100 + yy, month - 1, day, hour, minute, second, ms) - offsetMs);
}

/** The type parsers the store's pool uses: pg's own, but for `timestamptz` in text. */
export const STORE_TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMPTZ && format !== 'binary' ? parseTimestamptz : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig['getTypeParser'],
};
