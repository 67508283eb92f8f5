import { DomainError, invalid } from '../domain/errors.js';
import type { Target } from '../domain/scope.js';
import type { AccountStore } from './ports/account-store.js';

/** How the operator names whose dashboards a CLI command acts on: `--owner <handle>` or `--workspace <slug>`. */
export interface OperatorSelector {
  owner?: string;
  workspace?: string;
}

export const unknownOwner = (handle: string) => new DomainError('not_found', `no user with handle "${handle}"`);
export const unknownWorkspace = (slug: string) => new DomainError('not_found', `workspace "${slug}" not found`);

/** Exactly one of owner or workspace, resolved to the target it names. */
export async function resolveOperatorTarget(accounts: AccountStore, selector: OperatorSelector): Promise<Target> {
  if ((selector.owner === undefined) === (selector.workspace === undefined)) throw invalid('pass exactly one of --owner <handle> or --workspace <slug>');
  if (selector.owner !== undefined) {
    const user = await accounts.findUserByHandle(selector.owner);
    if (!user) throw unknownOwner(selector.owner);
    return { kind: 'personal', userId: user.id, handle: user.handle };
  }
  const workspace = await accounts.findWorkspaceBySlug(selector.workspace!);
  if (!workspace) throw unknownWorkspace(selector.workspace!);
  return { kind: 'workspace', workspaceId: workspace.id, slug: workspace.slug };
}
