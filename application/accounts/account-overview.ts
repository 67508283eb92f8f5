import { inject, injectable } from 'inversify';
import { AccountStore, type Plan } from '../ports/account-store.js';
import type { Principal } from '../ports/token-verifier.js';
import { ScopeResolver } from '../scope-resolver.js';
import { subdomainOf } from '../../domain/scope.js';
import { canonicalUrl } from '../../domain/urls.js';
import { Settings } from '../ports/settings.js';
import type { GrantLock } from '../../domain/scope.js';

export interface LockView {
  kind: 'personal' | 'workspace' | 'none';
  workspace: string | null;
  description: string;
}

export function lockView(lock: GrantLock): LockView {
  switch (lock.kind) {
    case 'personal':
      return { kind: 'personal', workspace: null, description: 'This connection acts on your personal account only.' };
    case 'workspace':
      return { kind: 'workspace', workspace: lock.workspaceSlug, description: `This connection acts on the "${lock.workspaceSlug}" workspace only.` };
    case 'legacy':
      return { kind: 'none', workspace: null, description: 'This connection acts on your personal account, or on a workspace you name with the workspace argument.' };
  }
}

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
  target: { kind: 'personal' | 'workspace'; name: string; dashboardsUrl: string };
  scope: string;
}

/** whoami and list_workspaces: who the grant acts for and where. */
@injectable()
export class AccountOverview {
  constructor(
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(ScopeResolver) private readonly scopes: ScopeResolver,
    @inject(Settings) private readonly settings: Settings,
  ) {}

  async whoami(principal: Principal, input: TargetArg): Promise<Whoami> {
    const me = await this.scopes.personal(principal.userId);
    const user = await this.accounts.findUserById(principal.userId);
    const target = await this.scopes.resolve(principal, input.workspace);
    return {
      handle: me.kind === 'personal' ? me.handle : '',
      email: user?.email ?? null,
      plan: user?.plan ?? 'free',
      lock: principal.lock,
      target: { kind: target.kind, name: subdomainOf(target), dashboardsUrl: canonicalUrl(this.settings, subdomainOf(target), '') },
      scope: principal.scope,
    };
  }

  /** `workspace` is not needed here, but a grant's lock still refuses one it does not allow (the spec's scope rules). */
  async listWorkspaces(principal: Principal, args: Record<string, unknown> = {}) {
    await this.scopes.resolve(principal, args.workspace);
    const memberships = await this.accounts.listMemberships(principal.userId);
    const lock = lockView(principal.lock);
    const workspaces = memberships
      .map(({ workspace, role }) => ({
        slug: workspace.slug,
        name: workspace.name,
        role,
        usable: lock.kind === 'none' || lock.workspace === workspace.slug,
        dashboards_url: canonicalUrl(this.settings, workspace.slug, ''),
      }))
      .sort((a, b) => a.slug.localeCompare(b.slug));
    return { count: workspaces.length, workspaces, lock };
  }
}
