import { invalid, typeName } from './errors.js';

/** The small readers every part of the spec (panels, queries, and what joins them later) parses with. */

export const ID_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
export const ID_RULE = 'must match [A-Za-z0-9_-] (1 to 64 characters)';

export const given = (value: unknown) => value !== undefined && value !== null;
export const isPlainObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
export const got = (value: unknown) => (typeof value === 'string' ? JSON.stringify(value) : typeName(value));
export const field = (parent: string, key: string) => (ID_PATTERN.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`);

export function refuseUnknownKeys(value: Record<string, unknown>, where: string, allowed: string[]): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) {
      throw invalid(`${where} has unknown key ${JSON.stringify(key)} (allowed: ${allowed.join(', ')})`);
    }
  }
}

export function requiredText(value: unknown, where: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw invalid(given(value) && typeof value !== 'string'
      ? `${where} must be a non-empty string (got ${typeName(value)})`
      : `${where} must be a non-empty string`);
  }
  return value;
}

export function optionalString(value: unknown, where: string): string {
  if (typeof value !== 'string') throw invalid(`${where} must be a string (got ${typeName(value)})`);
  return value;
}

export function checkId(id: string, where: string): void {
  if (!ID_PATTERN.test(id)) throw invalid(`${where} ${JSON.stringify(id)} ${ID_RULE}`);
  // Ids become object keys here and in data.json; this one would rewrite the object's prototype instead.
  if (id === '__proto__') throw invalid(`${where} "__proto__" is reserved`);
}

export function column(value: unknown, where: string): string {
  if (typeof value !== 'string' || value === '') {
    throw invalid(`${where} must be a non-empty column name (got ${got(value)})`);
  }
  return value;
}
