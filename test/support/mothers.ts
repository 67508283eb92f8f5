/**
 * Object Mothers: the users, workspaces, principals and dashboards the suites start from, each valid as
 * the service would make it, with only what a test cares about passed in.
 */
import { randomUUID } from 'node:crypto';
import type { AccountStore, UserRecord, WorkspaceRecord } from '../../application/ports/account-store.js';
import type { DashboardRecord } from '../../application/ports/dashboard-store.js';
import type { Principal } from '../../application/ports/token-verifier.js';
import { MCP_SCOPE } from '../../domain/oauth.js';
import type { GrantLock, OwnerRef } from '../../domain/scope.js';

let counter = 0;
/** A name no other test in this process uses. */
export const uniq = (prefix: string) => `${prefix}-${process.pid.toString(36)}-${(counter++).toString(36)}`;

type UserInput = Parameters<AccountStore['createUser']>[0];

/** A stored user: a fresh handle, `<handle>@example.com`, no password, the free plan, unless told. */
export function aUser(accounts: AccountStore, over: Partial<UserInput> = {}): Promise<UserRecord> {
  const handle = over.handle ?? uniq('user');
  return accounts.createUser({ handle, email: `${handle}@example.com`, passwordHash: null, plan: 'free', ...over });
}

/** A stored workspace: a fresh slug named "Team", unless told. */
export function aWorkspace(accounts: AccountStore, over: Partial<{ slug: string; name: string }> = {}): Promise<WorkspaceRecord> {
  return accounts.createWorkspace({ slug: over.slug ?? uniq('team'), name: over.name ?? 'Team' });
}

/** The lock of a grant consented for one workspace. */
export const workspaceLock = (workspace: Pick<WorkspaceRecord, 'id' | 'slug'>): GrantLock => ({
  kind: 'workspace',
  workspaceId: workspace.id,
  workspaceSlug: workspace.slug,
});

/** Who a verified access token speaks for: a personal-locked grant with the one scope the service issues. */
export function aPrincipal(userId: string, over: Partial<Principal> = {}): Principal {
  return { userId, grantId: `grant-${userId}`, lock: { kind: 'personal' }, scope: MCP_SCOPE, ...over };
}

/** A dashboard record as the store keeps it (for store-level tests; use cases publish their own). */
export function aDashboard(owner: OwnerRef, over: Partial<DashboardRecord> = {}): DashboardRecord {
  const slug = over.slug ?? uniq('dash');
  const now = new Date();
  return {
    id: randomUUID(),
    owner,
    slug,
    name: `Dashboard ${slug}`,
    tags: [],
    chart: null,
    visibility: 'public',
    connection: 'self',
    currentVersionId: randomUUID(),
    createdBy: owner.id,
    createdAt: now,
    updatedAt: now,
    ...over,
  };
}
