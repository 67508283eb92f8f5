import type { Container } from 'inversify';
import { AccountOverview, type WorkspaceList, type Whoami } from '../../../../application/accounts/account-overview.js';
import type { GrantLock } from '../../../../domain/scope.js';
import { answer } from './presenters.js';
import { READ, workspaceArg } from './schemas.js';
import type { ToolSpec } from './dashboard-tools.js';

interface LockView {
  kind: 'personal' | 'workspace' | 'none';
  workspace: string | null;
  description: string;
}

/** How a grant's lock reads to the client: a kind, the workspace, and a sentence. */
function lockView(lock: GrantLock): LockView {
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
const workspacesJson = (list: WorkspaceList) => ({
  count: list.workspaces.length,
  workspaces: list.workspaces.map((w) => ({ slug: w.slug, name: w.name, role: w.role, usable: w.usable, dashboards_url: w.dashboardsUrl })),
  lock: lockView(list.lock),
});

/** whoami's wire shape. */
const whoamiJson = (w: Whoami) => ({
  handle: w.handle,
  email: w.email,
  plan: w.plan,
  lock: lockView(w.lock),
  target: { kind: w.target.kind, name: w.target.name, dashboards_url: w.target.dashboardsUrl },
  scope: w.scope,
});

export function accountTools(container: Container): ToolSpec[] {
  const accounts = container.get(AccountOverview);
  return [
    {
      name: 'list_workspaces',
      title: 'List workspaces',
      description: 'The workspaces you belong to, with your role, and which of them this authorization may act on.',
      inputSchema: { type: 'object', properties: { workspace: workspaceArg }, additionalProperties: false },
      annotations: READ,
      async call(principal, args) {
        const r = workspacesJson(await accounts.listWorkspaces(principal, { workspace: args.workspace }));
        const lines =
          r.count === 0
            ? ['You belong to no workspaces.', r.lock.description]
            : [`${r.count} workspace(s):`, ...r.workspaces.map((w) => `- ${w.name} (${w.slug}, ${w.role})${w.usable ? '' : ' - not usable by this authorization'}`), r.lock.description];
        return answer(lines, r);
      },
    },
    {
      name: 'whoami',
      title: 'Who am I',
      description: 'Your handle and plan, what this authorization is locked to, and where a call with the given workspace argument would act.',
      inputSchema: { type: 'object', properties: { workspace: workspaceArg }, additionalProperties: false },
      annotations: READ,
      async call(principal, args) {
        const r = whoamiJson(await accounts.whoami(principal, { workspace: args.workspace }));
        return answer([`Signed in as ${r.handle} (${r.plan} plan). ${r.lock.description} Calls act on ${r.target.kind === 'personal' ? 'your personal account' : `the "${r.target.name}" workspace`}.`], r);
      },
    },
  ];
}
