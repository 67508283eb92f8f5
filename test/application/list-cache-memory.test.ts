import { expect } from 'chai';
import { AccountStore } from '../../application/ports/account-store.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { SerializedToolResult, type ToolDefinition } from '../../shells/koa/mcp/tool-registry.js';
import { dashboardTools } from '../../shells/koa/mcp/tools/dashboard-tools.js';
import { ListAnswerCache } from '../../shells/koa/mcp/list-answer-cache.js';
import { aPrincipal, aUser, aWorkspace, workspaceLock } from '../support/mothers.js';
import { testSettings } from '../support/settings.js';

/**
 * The list_dashboards cache on in-memory storage, where this process's own writes are all there is
 * (docs/decisions.md, "Cached list_dashboards answers"): a write drops the owner's answers at once, and a
 * remembered answer is never reached before the grant lock and the membership are checked again.
 */
describe('application: remembered list_dashboards answers (memory)', () => {
  let app: AppContainer;
  let tools: Map<string, ToolDefinition>;
  let accounts: AccountStore;

  before(async () => {
    app = await buildContainer(testSettings(), { storage: 'memory', refreshWorkers: false });
    tools = new Map(dashboardTools(app.container).map((tool) => [tool.name, tool]));
    accounts = app.container.get<AccountStore>(AccountStore);
  });

  after(() => app.close());

  const call = (name: string, principal: ReturnType<typeof aPrincipal>, args: Record<string, unknown>) => tools.get(name)!.call(principal, args);
  const slugsOf = (result: { structuredContent?: Record<string, unknown> }) => (result.structuredContent!.dashboards as Array<{ slug: string }>).map((d) => d.slug);

  it('answers from memory until this process writes to the owner, then shows the write at once', async () => {
    const principal = aPrincipal((await aUser(accounts)).id);
    await call('publish_dashboard', principal, { path: 'first', body: '<p>1</p>' });
    const built = await call('list_dashboards', principal, {});
    expect(built).to.be.instanceOf(SerializedToolResult);
    expect(await call('list_dashboards', principal, {})).to.equal(built);
    await call('publish_dashboard', principal, { path: 'second', body: '<p>2</p>' });
    expect(slugsOf(await call('list_dashboards', principal, {}))).to.deep.equal(['first', 'second']);
    await call('update_dashboard', principal, { slug: 'second', tags: ['x'] });
    expect(slugsOf(await call('list_dashboards', principal, { tag: 'x' }))).to.deep.equal(['second']);
    await call('delete_dashboard', principal, { slug: 'second' });
    expect(slugsOf(await call('list_dashboards', principal, { tag: 'x' }))).to.deep.equal([]);
    expect(slugsOf(await call('list_dashboards', principal, {}))).to.deep.equal(['first']);
  });

  it('checks the workspace membership on every call, remembered answer or not', async () => {
    const user = await aUser(accounts);
    const team = await aWorkspace(accounts);
    await accounts.addMember(team.id, user.id, 'admin');
    const principal = aPrincipal(user.id, { lock: workspaceLock(team) });
    await call('publish_dashboard', principal, { path: 'shared', body: '<p>team</p>' });
    const remembered = await call('list_dashboards', principal, {});
    expect(await call('list_dashboards', principal, {})).to.equal(remembered);
    const cache = app.container.get(ListAnswerCache);
    const size = cache.size;
    const findMembership = accounts.findMembership.bind(accounts);
    accounts.findMembership = async () => null;
    try {
      let refusal: unknown;
      await call('list_dashboards', principal, {}).catch((err: unknown) => (refusal = err));
      expect((refusal as Error).message).to.equal(`not a member of workspace "${team.slug}"`);
    } finally {
      accounts.findMembership = findMembership;
    }
    expect(cache.size).to.equal(size);
  });
});
