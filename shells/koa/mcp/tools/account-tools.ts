import type { Container } from 'inversify';
import { AccountOverview } from '../../../../application/accounts/account-overview.js';
import { Settings } from '../../../../application/ports/settings.js';
import { whoamiJson, workspacesJson } from '../../../presenters/accounts/account-presenters.js';
import { answer } from './presenters.js';
import { READ, workspaceArg } from './schemas.js';
import type { ToolSpec } from './dashboard-tools.js';

export function accountTools(container: Container): ToolSpec[] {
  const accounts = container.get(AccountOverview);
  const urls = container.get<Settings>(Settings);
  return [
    {
      name: 'list_workspaces',
      title: 'List workspaces',
      description: 'The workspaces you belong to, with your role, and which of them this authorization may act on.',
      inputSchema: { type: 'object', properties: { workspace: workspaceArg }, additionalProperties: false },
      annotations: READ,
      async call(principal, args) {
        const r = workspacesJson(urls, await accounts.listWorkspaces(principal, { workspace: args.workspace }));
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
        const r = whoamiJson(urls, await accounts.whoami(principal, { workspace: args.workspace }));
        return answer([`Signed in as ${r.handle} (${r.plan} plan). ${r.lock.description} Calls act on ${r.target.kind === 'personal' ? 'your personal account' : `the "${r.target.name}" workspace`}.`], r);
      },
    },
  ];
}
