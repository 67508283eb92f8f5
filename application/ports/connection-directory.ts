import type { ConnectionRef } from '../../domain/connection-ref.js';
import type { Target } from '../../domain/scope.js';
import type { Principal } from './token-verifier.js';
import type { SqlTarget } from './warehouse.js';

export const ConnectionDirectory = Symbol.for('ConnectionDirectory');
/**
 * Step two of connection resolution (the shape check is domain/connection-ref.ts): may this caller use
 * this connection from this target? Throws the spec's texts; returns warnings the publish result shows
 * (for example a workspace dashboard bound to a personal connection, which can never refresh).
 */
export interface ConnectionDirectory {
  ensureUsable(principal: Principal, target: Target, ref: ConnectionRef): Promise<UsableConnection>;
}

/** A connection this caller may use from this target, found once and opened only if queries run. */
export interface UsableConnection {
  label: string;
  warnings: string[];
  open(): SqlTarget;
}
