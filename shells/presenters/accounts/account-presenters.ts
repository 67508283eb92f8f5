import type { WorkspaceList, Whoami } from '../../../application/accounts/account-overview.js';
import type { GrantLock } from '../../../domain/scope.js';
import { canonicalUrl, type UrlSettings } from '../../../domain/urls.js';

/*
 * whoami's and list_workspaces' wire shapes, made from AccountOverview's records: snake_case keys, the
 * lock as a sentence, each account's dashboards address. The key order is the wire format, so keep it.
 */

/** The address listing an account's or a workspace's public dashboards (its subdomain's root). */
export const dashboardsUrl = (urls: UrlSettings, subdomain: string) => canonicalUrl(urls, subdomain, '');

export interface LockView {
  kind: 'personal' | 'workspace' | 'none';
  workspace: string | null;
  description: string;
}

/** How a grant's lock reads to the client: a kind, the workspace, and a sentence. */
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

/** list_workspaces' wire shape. */
export const workspacesJson = (urls: UrlSettings, list: WorkspaceList) => ({
  count: list.workspaces.length,
  workspaces: list.workspaces.map((w) => ({ slug: w.slug, name: w.name, role: w.role, usable: w.usable, dashboards_url: dashboardsUrl(urls, w.slug) })),
  lock: lockView(list.lock),
});

/** whoami's wire shape. */
export const whoamiJson = (urls: UrlSettings, w: Whoami) => ({
  handle: w.handle,
  email: w.email,
  plan: w.plan,
  lock: lockView(w.lock),
  target: { kind: w.target.kind, name: w.target.name, dashboards_url: dashboardsUrl(urls, w.target.name) },
  scope: w.scope,
});
