import type { ConnectionSummary } from '../../../application/connections/manage-connections.js';

/*
 * A warehouse connection's wire shape, made from the use cases' summary: snake_case keys, ISO times, the
 * scope named. list_connections, the CLI's `connection` commands and their --json output show this shape;
 * the key order is the wire format, so keep it.
 */

export interface ConnectionJson {
  id: string;
  label: string;
  kind: 'postgres';
  status: string;
  scope: 'personal' | 'workspace';
  workspace_id: string | null;
  last_tested_at: string | null;
  last_error: string | null;
  created_at: string;
}

export function connectionJson(c: ConnectionSummary): ConnectionJson {
  return {
    id: c.id,
    label: c.label,
    kind: c.kind,
    status: c.status,
    scope: c.workspaceId === null ? 'personal' : 'workspace',
    workspace_id: c.workspaceId,
    last_tested_at: c.lastTestedAt?.toISOString() ?? null,
    last_error: c.lastError,
    created_at: c.createdAt.toISOString(),
  };
}
