import { AccountOverview, type WorkspaceList, type Whoami } from '../../../../application/accounts/account-overview.js';
import type { GrantLock } from '../../../../domain/scope.js';
import { answer } from './presenters.js';
import { READ, WORKSPACE } from './schemas.js';
import { Workspace } from './arguments.js';
import { defineTool } from './definition.js';

/** list_workspaces' and whoami's input: the workspace a call would act on. */
export class TargetInput {
  @Workspace(WORKSPACE)
  workspace?: unknown;
}

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

export const ACCOUNT_TOOLS = [
  defineTool({
    name: 'list_workspaces',
    title: 'List workspaces',
    description: 'The workspaces you belong to, with your role, and which of them this authorization may act on.',
    input: TargetInput,
    annotations: READ,
    guide: { group: 'Who and where', when: 'to see the workspaces the user belongs to and which of them this authorization may target' },
    bind(container) {
      const accounts = container.get(AccountOverview);
      return {
        async call(principal, input) {
          const r = workspacesJson(await accounts.listWorkspaces(principal, input));
          const lines =
            r.count === 0
              ? ['You belong to no workspaces.', r.lock.description]
              : [`${r.count} workspace(s):`, ...r.workspaces.map((w) => `- ${w.name} (${w.slug}, ${w.role})${w.usable ? '' : ' - not usable by this authorization'}`), r.lock.description];
          return answer(lines, r);
        },
      };
    },
  }),
  defineTool({
    name: 'whoami',
    title: 'Who am I',
    description: 'Your handle and plan, what this authorization is locked to, and where a call with the given workspace argument would act.',
    input: TargetInput,
    annotations: READ,
    guide: { group: 'Who and where', when: 'first, to see the handle, the plan and which account or workspace this authorization acts on' },
    bind(container) {
      const accounts = container.get(AccountOverview);
      return {
        async call(principal, input) {
          const r = whoamiJson(await accounts.whoami(principal, input));
          return answer([`Signed in as ${r.handle} (${r.plan} plan). ${r.lock.description} Calls act on ${r.target.kind === 'personal' ? 'your personal account' : `the "${r.target.name}" workspace`}.`], r);
        },
      };
    },
  }),
];
