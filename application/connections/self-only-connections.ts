import { injectable } from 'inversify';
import { connectionNotFound, type ConnectionRef } from '../../domain/connection-ref.js';
import type { ConnectionDirectory } from '../ports/connection-directory.js';

/**
 * The connection directory of a server with no warehouse connections: `self` is always usable and any
 * id gets the one "not found" sentence the spec gives for every cause.
 */
@injectable()
export class SelfOnlyConnections implements ConnectionDirectory {
  async ensureUsable(_principal: unknown, _target: unknown, ref: ConnectionRef) {
    if (ref === 'self') return { label: 'self', warnings: [] };
    throw connectionNotFound(ref.id);
  }
}
