import { expect } from 'chai';
import { whoamiJson, workspacesJson } from '../../shells/presenters/accounts/account-presenters.js';

/** whoami's and list_workspaces' wire shapes, made from AccountOverview's records: keys in order, dashboards addresses. */
describe('account presenters', () => {
  const urls = { dashboardScheme: 'https', dashboardDomain: 'dash.example' };

  it('shows whoami with the lock as a sentence and the target\'s dashboards address, keys in wire order', () => {
    const json = whoamiJson(urls, {
      handle: 'ada',
      email: 'ada@example.com',
      plan: 'pro',
      lock: { kind: 'workspace', workspaceId: 'w1', workspaceSlug: 'acme' },
      target: { kind: 'workspace', name: 'acme' },
      scope: 'dashboards',
    });
    expect(Object.keys(json)).to.deep.equal(['handle', 'email', 'plan', 'lock', 'target', 'scope']);
    expect(Object.keys(json.lock)).to.deep.equal(['kind', 'workspace', 'description']);
    expect(json.lock).to.deep.equal({ kind: 'workspace', workspace: 'acme', description: 'This connection acts on the "acme" workspace only.' });
    expect(json.target).to.deep.equal({ kind: 'workspace', name: 'acme', dashboards_url: 'https://acme.dash.example/' });
  });

  it('lists workspaces with their dashboards addresses, and a legacy lock as "none"', () => {
    const json = workspacesJson(urls, {
      lock: { kind: 'legacy' },
      workspaces: [{ slug: 'acme', name: 'Acme', role: 'admin', usable: true }],
    });
    expect(Object.keys(json)).to.deep.equal(['count', 'workspaces', 'lock']);
    expect(json.workspaces).to.deep.equal([{ slug: 'acme', name: 'Acme', role: 'admin', usable: true, dashboards_url: 'https://acme.dash.example/' }]);
    expect(json.lock.kind).to.equal('none');
  });
});
