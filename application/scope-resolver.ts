import { inject, injectable } from 'inversify';
import { AccountStore } from './ports/account-store.js';
import type { Principal } from './ports/token-verifier.js';
import { DomainError } from '../domain/errors.js';
import { notAMember, requestedScope, workspaceNotFound, type Target } from '../domain/scope.js';

/**
 * Turns a grant's lock and a call's `workspace` argument into the target the call acts on.
 * The tenant check lives here, in the application, so every shell gets it.
 */
@injectable()
export class ScopeResolver {
  constructor(@inject(AccountStore) private readonly accounts: AccountStore) {}

  async resolve(principal: Principal, workspaceArgument: unknown): Promise<Target> {
    const request = requestedScope(principal.lock, workspaceArgument);
    if (request.kind === 'personal') return this.personalOf(principal);
    const slug = request.kind === 'lookup' ? request.slug : request.workspace.slug;
    const workspace =
      request.kind === 'lookup'
        ? await this.accounts.findWorkspaceBySlug(slug)
        : await this.accounts.findWorkspaceById(request.workspace.id);
    if (!workspace) throw workspaceNotFound(slug);
    // Fail closed: a locked grant whose user has since left the workspace acts on nothing.
    const membership = await this.accounts.findMembership(workspace.id, principal.userId);
    if (!membership) throw notAMember(workspace.slug);
    return { kind: 'workspace', workspaceId: workspace.id, slug: workspace.slug };
  }

  /** The caller's personal target; no query when the verifier read the handle with the token. */
  async personalOf(principal: Principal): Promise<Target> {
    // The user exists: a deleted user's grants, and so its tokens, went with it.
    if (principal.handle !== undefined) return { kind: 'personal', userId: principal.userId, handle: principal.handle };
    return this.personal(principal.userId);
  }

  async personal(userId: string): Promise<Target> {
    const user = await this.accounts.findUserById(userId);
    if (!user) throw new DomainError('unauthenticated', 'The account behind this authorization no longer exists. Sign in again.');
    return { kind: 'personal', userId: user.id, handle: user.handle };
  }
}
