/**
 * Every refusal the service makes is a DomainError with a stable `code`.
 * Shells map codes to their own channel (tool result, JSON-RPC error, HTTP status, OAuth error)
 * in exactly one place each; the message is the user-facing text and is never rewritten.
 */
export type ErrorCode =
  | 'invalid_argument'
  | 'payload_too_large'
  | 'not_found'
  | 'scope_refused'
  | 'conflict'
  | 'limit_reached'
  | 'rate_limited'
  | 'plan_required'
  | 'forbidden'
  | 'unauthenticated'
  | 'unavailable';

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const invalid = (message: string) => new DomainError('invalid_argument', message);

export function isDomainError(value: unknown): value is DomainError {
  return value instanceof DomainError;
}

/** JavaScript's own name for a value's type, as the spec's `(got <typeof>)` texts use it. */
export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
