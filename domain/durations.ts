/**
 * Durations as people type them on a command line or in a form: a whole number and a unit, `30m`, `12h`,
 * `7d` or `2w`. Used for share-link expiries and signed-embed lifetimes.
 */
const UNIT_MS: Readonly<Record<string, number>> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 7 * 86_400_000 };
const DURATION = /^([1-9][0-9]{0,5})([mhdw])$/;

/** Milliseconds, or null when `text` is not a duration of that shape. */
export function parseDuration(text: string): number | null {
  const match = DURATION.exec(text.trim());
  if (!match) return null;
  return Number(match[1]) * UNIT_MS[match[2]!]!;
}

export const DURATION_HINT = 'a whole number and a unit: 30m, 12h, 7d or 2w';
