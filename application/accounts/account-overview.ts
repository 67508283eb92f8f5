import { inject, injectable } from 'inversify';
import { AccountStore, type Plan, type WorkspaceRole } from '../ports/account-store.js';
import type { Principal } from '../ports/token-verifier.js';
import { ScopeResolver } from '../scope-resolver.js';
import { subdomainOf } from '../../domain/scope.js';
import type { GrantLock } from '../../domain/scope.js';

/** Calls that only name a target: the workspace as the caller sent it, for the grant-lock rules to judge. */
export interface TargetArg {
  workspace?: unknown;
}

/** Who the grant acts for, and where a call naming `workspace` would act. */
export interface Whoami {
  handle: string;
  email: string | null;
  plan: Plan;
  lock: GrantLock;
  target: { kind: 'personal' | 'workspace'; name: string };
  scope: string;
}

/** The caller's workspaces, slug order, each with whether this grant may act on it. */
export interface WorkspaceList {
  lock: GrantLock;
  workspaces: Array<{ slug: string; name: string; role: WorkspaceRole; usable: boolean }>;
}

/** whoami and list_workspaces: who the grant acts for and where. */
@injectable()
export class AccountOverview {
  constructor(
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(ScopeResolver) private readonly scopes: ScopeResolver,
  ) {}

  async whoami(principal: Principal, input: TargetArg): Promise<Whoami> {
    const me = await this.scopes.personalOf(principal);
    const user = await this.accounts.findUserById(principal.userId);
    const target = await this.scopes.resolve(principal, input.workspace);
    return {
      handle: me.kind === 'personal' ? me.handle : '',
      email: user?.email ?? null,
      plan: user?.plan ?? 'free',
      lock: principal.lock,
      target: { kind: target.kind, name: subdomainOf(target) },
      scope: principal.scope,
    };
  }

  /** `workspace` is not needed here, but a grant's lock still refuses one it does not allow (the grant-lock rules). */
  async listWorkspaces(principal: Principal, input: TargetArg): Promise<WorkspaceList> {
    await this.scopes.resolve(principal, input.workspace);
    const memberships = await this.accounts.listMemberships(principal.userId);
    const lock = principal.lock;
    const workspaces = memberships
      .map(({ workspace, role }) => ({
        slug: workspace.slug,
        name: workspace.name,
        role,
        // A legacy grant may act on any of them; a workspace-locked one on its own workspace only.
        usable: lock.kind === 'legacy' || (lock.kind === 'workspace' && lock.workspaceSlug === workspace.slug),
      }))
      .sort((a, b) => a.slug.localeCompare(b.slug));
    return { lock, workspaces };
  }
}
