import { DomainError, invalid } from './errors.js';
import type { Visibility } from './metadata.js';

/** The lock a grant carries, set at consent; re-authorizing is the only way to change it. */
export type GrantLock =
  | { kind: 'personal' }
  | { kind: 'workspace'; workspaceId: string; workspaceSlug: string }
  | { kind: 'legacy' };

export interface WorkspaceRef {
  id: string;
  slug: string;
}

/** Whose dashboards a call acts on. Dashboards are owned by exactly one of these. */
export type Target =
  | { kind: 'personal'; userId: string; handle: string }
  | { kind: 'workspace'; workspaceId: string; slug: string };

export type OwnerKind = 'user' | 'workspace';
export interface OwnerRef {
  kind: OwnerKind;
  id: string;
}

export function ownerOf(target: Target): OwnerRef {
  return target.kind === 'personal' ? { kind: 'user', id: target.userId } : { kind: 'workspace', id: target.workspaceId };
}

/** The subdomain a target's dashboards are served on. */
export function subdomainOf(target: Target): string {
  return target.kind === 'personal' ? target.handle : target.slug;
}

export function defaultVisibility(target: Target): Visibility {
  return target.kind === 'personal' ? 'public' : 'private';
}

/**
 * What the lock and the `workspace` argument ask for, before any lookup.
 * `lookup` means a legacy grant named a workspace that must still be found and checked for membership.
 */
export type ScopeRequest = { kind: 'personal' } | { kind: 'locked-workspace'; workspace: WorkspaceRef } | { kind: 'lookup'; slug: string };

const argumentGiven = (value: unknown) => value !== undefined && value !== null;

export function requestedScope(lock: GrantLock, workspaceArgument: unknown): ScopeRequest {
  switch (lock.kind) {
    case 'personal':
      if (argumentGiven(workspaceArgument) && workspaceArgument !== '') {
        throw new DomainError(
          'scope_refused',
          'This connection is authorized for your personal account only and cannot act on a workspace. ' +
            'Re-authorize the connection and choose the workspace on the consent screen to act on it.',
        );
      }
      return { kind: 'personal' };
    case 'workspace':
      if (argumentGiven(workspaceArgument) && workspaceArgument !== lock.workspaceSlug) {
        throw new DomainError(
          'scope_refused',
          `This connection is authorized for the "${lock.workspaceSlug}" workspace and cannot act on "${String(workspaceArgument)}". ` +
            'Re-authorize the connection and choose that workspace on the consent screen to act on it.',
        );
      }
      return { kind: 'locked-workspace', workspace: { id: lock.workspaceId, slug: lock.workspaceSlug } };
    case 'legacy':
      if (!argumentGiven(workspaceArgument)) return { kind: 'personal' };
      if (typeof workspaceArgument !== 'string' || workspaceArgument.trim() === '') {
        throw invalid('workspace must be a non-empty slug string');
      }
      return { kind: 'lookup', slug: workspaceArgument };
  }
}

export const workspaceNotFound = (slug: string) => new DomainError('not_found', `workspace "${slug}" not found`);
export const notAMember = (slug: string) => new DomainError('forbidden', `not a member of workspace "${slug}"`);

export const triggerRefreshWorkspaceRefusal = () =>
  new DomainError(
    'scope_refused',
    "Triggering a refresh on demand isn't available for workspace dashboards yet - it works on personal dashboards only.",
  );
