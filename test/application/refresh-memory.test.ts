import { expect } from 'chai';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { testSettings } from '../support/settings.js';
import { json, makeUser, registry, text } from '../support/refresh-fixtures.js';
import { RefreshOptions } from '../../application/refresh/refresh-options.js';
import { MemoryRefreshQueue } from '../../adapters/jobs/memory-refresh-queue.js';
import type { ToolRegistry } from '../../shells/koa/mcp/tool-registry.js';
import { DashboardStore } from '../../application/ports/dashboard-store.js';
import { ServedFiles } from '../../application/hosting/served-files.js';

const selfSpec = {
  title: 'My dashboards',
  queries: { list: { sql: 'SELECT slug, name FROM dashboards ORDER BY slug' } },
  panels: [{ id: 't', type: 'table', query: 'list' }],
};

describe('refresh with memory storage: self spec, trigger budget, static dashboards', function () {
  this.timeout(60_000);
  let app: AppContainer;
  let tools: ToolRegistry;

  before(async () => {
    app = await buildContainer(testSettings(), { storage: 'memory' });
    // A small budget so the test reaches it; the default is 60 per hour.
    (app.container.get<RefreshOptions>(RefreshOptions) as { budgetPerHour: number }).budgetPerHour = 3;
    tools = registry(app.container);
  });
  after(async () => app?.close());

  it('publishes a spec on self, refreshes it through the queue, then stops at the per-owner budget', async () => {
    const { principal } = await makeUser(app.container, 'free');
    const published = await tools.call(principal, 'publish_dashboard', { path: 'mine', spec: selfSpec });
    expect(published.isError, text(published)).to.equal(undefined);
    for (let i = 0; i < 3; i++) {
      const r = await tools.call(principal, 'trigger_refresh', { slug: 'mine' });
      expect(r.isError, text(r)).to.equal(undefined);
      await app.container.get(MemoryRefreshQueue).idle();
    }
    const status = json(await tools.call(principal, 'get_refresh_status', { slug: 'mine' }));
    expect(status).to.include({ refreshable: true, connection: 'self' });
    expect(status.last_run).to.include({ outcome: 'success', rows: 1, trigger: 'manual' });
    const over = await tools.call(principal, 'trigger_refresh', { slug: 'mine' });
    expect(over).to.deep.equal({ content: [{ type: 'text', text: 'Too many refresh triggers right now. Wait about a minute and try again.' }], isError: true });
  });

  it('keeps files published beside a spec across refreshes, and turns static when a page replaces the render', async () => {
    const { user, principal } = await makeUser(app.container, 'free');
    expect((await tools.call(principal, 'publish_dashboard', { path: 'mixed', spec: selfSpec })).isError).to.equal(undefined);
    expect((await tools.call(principal, 'publish_dashboard', { path: 'mixed/notes.txt', body: 'read me' })).isError).to.equal(undefined);
    const refreshed = async () => {
      await app.container.get(MemoryRefreshQueue).idle();
      const store = app.container.get<DashboardStore>(DashboardStore);
      const dashboard = (await store.findDashboard({ kind: 'user', id: user.id }, 'mixed'))!;
      return (await app.container.get(ServedFiles).manifest(dashboard))!;
    };
    expect(text(await tools.call(principal, 'trigger_refresh', { slug: 'mixed' }))).to.match(/^Queued a refresh/);
    const served = await refreshed();
    expect(Object.keys(served).sort()).to.deep.equal(['data.json', 'index.html', 'notes.txt']);
    expect(json(await tools.call(principal, 'get_refresh_status', { slug: 'mixed' })).last_run).to.include({ outcome: 'success' });

    const own = await tools.call(principal, 'publish_dashboard', { path: 'mixed', body: '<h1>my own page</h1>' });
    expect(text(own)).to.contain(
      "index.html replaces the page rendered from this dashboard's spec, so the dashboard is now static and no longer refreshes; publish a spec again to make it refreshable.",
    );
    expect(json(await tools.call(principal, 'get_refresh_status', { slug: 'mixed' }))).to.include({ refreshable: false });
    expect(text(await tools.call(principal, 'trigger_refresh', { slug: 'mixed' }))).to.include('is static');
    const page = (await refreshed())['index.html']!;
    expect(Buffer.from((await app.container.get(ServedFiles).bytes(page.sha256))!).toString()).to.equal('<h1>my own page</h1>');
  });

  it('refuses to schedule or trigger a static dashboard, and names a missing one', async () => {
    const { principal } = await makeUser(app.container, 'free');
    await tools.call(principal, 'publish_dashboard', { path: 'flat', body: '<p>static</p>' });
    expect(text(await tools.call(principal, 'trigger_refresh', { slug: 'flat' }))).to.include('is static');
    expect(text(await tools.call(principal, 'set_refresh_schedule', { slug: 'flat', schedule: '0 * * * *' }))).to.include('is static');
    expect(text(await tools.call(principal, 'trigger_refresh', { slug: 'gone' }))).to.equal('No dashboard named "gone" in your account');
  });

  it('refuses a workspace argument on trigger_refresh and the personal lock refuses workspaces elsewhere', async () => {
    const { principal } = await makeUser(app.container, 'free');
    const r = await tools.call(principal, 'trigger_refresh', { slug: 'x', workspace: 'team' });
    expect(r.isError).to.equal(true);
    expect(text(r)).to.equal("Triggering a refresh on demand isn't available for workspace dashboards yet - it works on personal dashboards only.");
    expect((await tools.call(principal, 'trigger_refresh', { slug: 'x', workspace: 5 })).content[0]!.text).to.equal(text(r));
    const s = await tools.call(principal, 'get_refresh_status', { slug: 'x', workspace: 'team' });
    expect(text(s)).to.match(/^This connection is authorized for your personal account only/);
  });

  it('declares schemas, annotations and outputSchemas for the six tools', () => {
    const listed = tools.list().filter((t) =>
      ['list_connections', 'introspect_schema', 'validate_cube_sql', 'set_refresh_schedule', 'trigger_refresh', 'get_refresh_status'].includes(t.name),
    );
    expect(listed).to.have.length(6);
    for (const tool of listed) {
      expect(tool.annotations).to.have.keys('readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint');
      expect(tool.title).to.be.a('string');
    }
    const withOutput = listed.filter((t) => t.outputSchema).map((t) => t.name).sort();
    expect(withOutput).to.deep.equal(['introspect_schema', 'list_connections', 'set_refresh_schedule', 'validate_cube_sql']);
    const noWorkspace = listed.filter((t) => !('workspace' in (t.inputSchema.properties as object))).map((t) => t.name).sort();
    expect(noWorkspace).to.deep.equal(['introspect_schema', 'list_connections', 'trigger_refresh', 'validate_cube_sql']);
  });
});
