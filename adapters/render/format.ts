const ISO_DATE_TIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})(:\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?$/;

type Precision = 'date' | 'minute' | 'second';

function isoParts(value: string): { date: string; minute: string; second: string } | null {
  const iso = ISO_DATE_TIME.exec(value);
  if (!iso) return null;
  const seconds = iso[3] ?? '';
  return { date: iso[1]!, minute: iso[2]!, second: /^(:00(\.0+)?)?$/.test(seconds) ? '' : seconds.slice(0, 3) };
}

function isoText(parts: NonNullable<ReturnType<typeof isoParts>>, precision: Precision): string {
  if (precision === 'date') return parts.date;
  return `${parts.date} ${parts.minute}${precision === 'second' ? parts.second || ':00' : ''}`;
}

function precisionOf(parts: NonNullable<ReturnType<typeof isoParts>>): Precision {
  if (parts.second) return 'second';
  return parts.minute === '00:00' ? 'date' : 'minute';
}

const RANK: Record<Precision, number> = { date: 0, minute: 1, second: 2 };

/**
 * A cell as display text. Timestamps from JSON are long ISO strings: one at midnight shows as its
 * date, others lose the zone and zero seconds, which keeps labels short.
 */
export function cellText(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string' || value instanceof Date) {
    const parts = isoParts(asText(value));
    return parts ? isoText(parts, precisionOf(parts)) : asText(value);
  }
  return asText(value);
}

/**
 * Query rows should hold JSON values, but a driver may hand over dates, bigints or json objects;
 * they are shown the way data.json will spell them rather than as "[object Object]".
 */
function asText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? '' : value.toISOString();
  if (typeof value === 'object' && value !== null) {
    try {
      return JSON.stringify(value, jsonSafe);
    } catch {
      return String(value);
    }
  }
  return String(value);
}

/** JSON.stringify replacer that writes bigints as strings instead of throwing. */
export function jsonSafe(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value;
}

/**
 * Display text for a whole column, so that timestamps share one precision: a series of hourly
 * values shows "2024-01-01 00:00" for midnight rather than a bare date among times.
 */
export function columnTexts(values: ReadonlyArray<unknown>): string[] {
  let precision: Precision = 'date';
  const parsed = values.map((value) => {
    const parts = typeof value === 'string' || value instanceof Date ? isoParts(asText(value)) : null;
    if (parts && RANK[precisionOf(parts)] > RANK[precision]) precision = precisionOf(parts);
    return parts;
  });
  return values.map((value, i) => (parsed[i] ? isoText(parsed[i]!, precision) : cellText(value)));
}

/**
 * Whether a numeric table column gets thousands separators: yes once any value has five digits or a
 * fraction, so amounts read easily while columns of years or small ids (2024, 1999) stay as written.
 */
export function wantsSeparators(values: ReadonlyArray<unknown>): boolean {
  return values.some((value) => typeof value === 'number' && (Math.abs(value) >= 10_000 || !Number.isInteger(value)));
}

export function tableCellText(value: unknown, separators: boolean): string {
  if (typeof value === 'number' && Number.isFinite(value)) return separators ? formatNumber(value) : String(value);
  return cellText(value);
}

/** Numbers, numeric strings (Postgres sends numeric and bigint as text), bigints and booleans as 1/0. */
export function toNumber(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (typeof value === 'bigint') return Number(value);
  if (typeof value === 'string') {
    if (value.trim() === '') return null;
    const parsed = Number(value);
    return Number.isFinite(parsed) ? parsed : null;
  }
  if (typeof value === 'boolean') return value ? 1 : 0;
  return null;
}

const plain = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });
const small = new Intl.NumberFormat('en-US', { maximumSignificantDigits: 3 });
const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

export function formatNumber(value: number): string {
  if (!Number.isFinite(value)) return String(value);
  if (value !== 0 && Math.abs(value) < 0.01) return small.format(value);
  return plain.format(value);
}

/** Axis ticks are read at a glance: 70K rather than 70,000. */
export function axisNumber(value: number): string {
  return Math.abs(value) >= 10_000 ? compact.format(value) : formatNumber(value);
}

/** A stat tile has room for a few characters: millions and up are abbreviated (1.2M). */
export function formatStat(value: number): string {
  if (Math.abs(value) >= 1_000_000) return compact.format(value);
  return formatNumber(value);
}

/** Readers are anywhere; UTC with the zone spelt out is unambiguous without a script to localize. */
export function formatTimestamp(at: Date): string {
  const iso = at.toISOString();
  return `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`;
}
