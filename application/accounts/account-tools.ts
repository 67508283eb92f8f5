import { inject, injectable } from 'inversify';
import { AccountStore } from '../ports/account-store.js';
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

/** whoami and list_workspaces: who the grant acts for and where. */
@injectable()
export class AccountTools {
  constructor(
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(ScopeResolver) private readonly scopes: ScopeResolver,
    @inject(Settings) private readonly settings: Settings,
  ) {}

  async whoami(principal: Principal, args: Record<string, unknown>) {
    const me = await this.scopes.personalOf(principal);
    const user = await this.accounts.findUserById(principal.userId);
    const target = await this.scopes.resolve(principal, args.workspace);
    return {
      handle: me.kind === 'personal' ? me.handle : '',
      email: user?.email ?? null,
      plan: user?.plan ?? 'free',
      lock: lockView(principal.lock),
      target: {
        kind: target.kind,
        name: subdomainOf(target),
        dashboards_url: canonicalUrl(this.settings, subdomainOf(target), ''),
      },
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
