import { AccountOverview } from '../../../../application/accounts/account-overview.js';
import { Settings } from '../../../../application/ports/settings.js';
import { whoamiJson, workspacesJson } from '../../../presenters/accounts/account-presenters.js';
import { answer } from './presenters.js';
import { READ, WORKSPACE } from './schemas.js';
import { Workspace } from './arguments.js';
import { defineTool } from './definition.js';

/** list_workspaces' and whoami's input: the workspace a call would act on. */
export class TargetInput {
  @Workspace(WORKSPACE)
  workspace?: unknown;
}

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
      const urls = container.get<Settings>(Settings);
      return {
        async call(principal, input) {
          const r = workspacesJson(urls, await accounts.listWorkspaces(principal, input));
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
      const urls = container.get<Settings>(Settings);
      return {
        async call(principal, input) {
          const r = whoamiJson(urls, await accounts.whoami(principal, input));
          return answer([`Signed in as ${r.handle} (${r.plan} plan). ${r.lock.description} Calls act on ${r.target.kind === 'personal' ? 'your personal account' : `the "${r.target.name}" workspace`}.`], r);
        },
      };
    },
  }),
];
