import { DomainError } from './errors.js';
import { isUuid } from './ids.js';

export type ConnectionRef = 'self' | { id: string };

/** Step one of connection resolution: the shape, before any lookup. Omitted means `self`. */
export function parseConnectionRef(value: unknown): ConnectionRef {
  if (value === undefined || value === null) return 'self';
  if (typeof value !== 'string') throw new DomainError('invalid_argument', 'connection must be a string');
  if (value === 'self') return 'self';
  if (isUuid(value)) return { id: value.toLowerCase() };
  throw new DomainError(
    'invalid_argument',
    `connection "${value}" is not a valid connection; pass "self" for the built-in metrics view, ` +
      'or the id of a warehouse connection you own. Warehouses are managed in the web app, ' +
      'and list_connections returns the ids of your connections.',
  );
}

export const connectionRefText = (ref: ConnectionRef) => (ref === 'self' ? 'self' : ref.id);

/** The four "not found" causes share one sentence so another user's connection id cannot be probed. */
export const connectionNotFound = (id: string) =>
  new DomainError(
    'not_found',
    `Connection "${id}" was not found among your connections. Connect warehouses in the web app, ` +
      'pass the id of one of your active connections (list_connections returns them), or use "self" with no connection id.',
  );

export const connectionNotActive = (labelOrId: string, status: string) =>
  new DomainError(
    'invalid_argument',
    `Connection "${labelOrId}" is not active (status: ${status}). Test it in the web app and retry once it is active.`,
  );

export const connectionUnverifiable = (err: string) => new DomainError('unavailable', `Could not verify the connection: ${err}`);
