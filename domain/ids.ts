import { invalid } from './errors.js';

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: unknown): value is string => typeof value === 'string' && UUID_PATTERN.test(value);

export function validateVersionId(value: unknown): string {
  if (!isUuid(value)) throw invalid('version_id must be a valid uuid');
  return value.toLowerCase();
}
