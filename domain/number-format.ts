import { invalid, typeName } from './errors.js';
import { given, got, isPlainObject, optionalString, refuseUnknownKeys } from './spec-reading.js';

/** How a panel's numbers read: `format: "percent"`, or `format: { type, currency, decimals, prefix, suffix }`. */
export const FORMAT_TYPES = ['number', 'percent', 'currency', 'bytes', 'duration', 'compact'] as const;
export type FormatType = (typeof FORMAT_TYPES)[number];

export interface NumberFormat {
  type: FormatType;
  /** ISO 4217 code, required for `currency`. */
  currency?: string;
  /** Fraction digits, 0 to 6; each type has its own default. */
  decimals?: number;
  prefix?: string;
  suffix?: string;
}

const FORMAT_KEYS = ['type', 'currency', 'decimals', 'prefix', 'suffix'];
const MAX_AFFIX_CHARS = 16;
const MAX_DECIMALS = 6;

function formatType(value: unknown, where: string): FormatType {
  if (!(FORMAT_TYPES as readonly unknown[]).includes(value)) throw invalid(`${where} must be one of ${FORMAT_TYPES.join(', ')} (got ${got(value)})`);
  return value as FormatType;
}

export function parseNumberFormat(value: unknown, where: string): NumberFormat {
  if (typeof value === 'string') return { type: formatType(value, where) };
  if (!isPlainObject(value)) throw invalid(`${where} must be a format name or an object (got ${typeName(value)})`);
  refuseUnknownKeys(value, where, FORMAT_KEYS);
  if (!given(value.type)) throw invalid(`${where}.type is required: one of ${FORMAT_TYPES.join(', ')}`);
  const format: NumberFormat = { type: formatType(value.type, `${where}.type`) };
  if (format.type === 'currency') {
    if (typeof value.currency !== 'string' || !/^[A-Za-z]{3}$/.test(value.currency)) {
      throw invalid(`${where}.currency must be a three-letter ISO 4217 code such as "EUR" for a currency format (got ${got(value.currency)})`);
    }
    format.currency = value.currency.toUpperCase();
  } else if (given(value.currency)) {
    throw invalid(`${where}.currency applies only to the currency format`);
  }
  if (given(value.decimals)) {
    const decimals = value.decimals;
    if (typeof decimals !== 'number' || !Number.isInteger(decimals) || decimals < 0 || decimals > MAX_DECIMALS) {
      throw invalid(`${where}.decimals must be an integer from 0 to ${MAX_DECIMALS} (got ${typeof decimals === 'number' ? decimals : got(decimals)})`);
    }
    format.decimals = decimals;
  }
  for (const key of ['prefix', 'suffix'] as const) {
    if (!given(value[key])) continue;
    const text = optionalString(value[key], `${where}.${key}`);
    if (text.length > MAX_AFFIX_CHARS) throw invalid(`${where}.${key} is ${text.length} characters, over the ${MAX_AFFIX_CHARS}-character limit`);
    format[key] = text;
  }
  return format;
}

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
const DURATION_UNITS: Array<[string, number]> = [['d', 86_400], ['h', 3_600], ['m', 60], ['s', 1]];

function fixed(value: number, decimals: number | undefined, fallback: number, options: Intl.NumberFormatOptions = {}): string {
  const digits = decimals ?? fallback;
  return new Intl.NumberFormat('en-US', { minimumFractionDigits: decimals ?? 0, maximumFractionDigits: digits, ...options }).format(value);
}

function bytes(value: number, decimals: number | undefined): string {
  let unit = 0;
  let scaled = Math.abs(value);
  while (scaled >= 1024 && unit < BYTE_UNITS.length - 1) {
    scaled /= 1024;
    unit++;
  }
  return `${value < 0 ? '-' : ''}${fixed(scaled, decimals, unit === 0 ? 0 : 1)} ${BYTE_UNITS[unit]}`;
}

/** Seconds as the two largest units that apply ("1h 5m", "2d 3h"); under a minute, seconds; under one, milliseconds. */
function duration(seconds: number, decimals: number | undefined): string {
  const sign = seconds < 0 ? '-' : '';
  const total = Math.abs(seconds);
  if (total < 1) return `${sign}${fixed(total * 1000, decimals, 0)} ms`;
  if (total < 60) return `${sign}${fixed(total, decimals, 0)}s`;
  const whole = Math.round(total);
  const i = DURATION_UNITS.findIndex(([, size]) => whole >= size);
  const [[major, size], [minor, next]] = [DURATION_UNITS[i]!, DURATION_UNITS[i + 1]!];
  const rest = Math.floor((whole % size) / next);
  return `${sign}${Math.floor(whole / size)}${major}${rest > 0 ? ` ${rest}${minor}` : ''}`;
}

/** A number as the format says, with its prefix and suffix. */
export function formatWith(format: NumberFormat, value: number): string {
  if (!Number.isFinite(value)) return String(value);
  const d = format.decimals;
  const body =
    format.type === 'percent' ? fixed(value, d, 1, { style: 'percent' })
    : format.type === 'currency' ? new Intl.NumberFormat('en-US', { style: 'currency', currency: format.currency!, ...(d === undefined ? {} : { minimumFractionDigits: d, maximumFractionDigits: d }) }).format(value)
    : format.type === 'bytes' ? bytes(value, d)
    : format.type === 'duration' ? duration(value, d)
    : format.type === 'compact' ? fixed(value, d, 1, { notation: 'compact' })
    : fixed(value, d, 2);
  return `${format.prefix ?? ''}${body}${format.suffix ?? ''}`;
}
