import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { DataSource } from 'typeorm';
import { AccountStore } from '../../application/ports/account-store.js';
import { PgBossRefreshQueue } from '../../adapters/jobs/pg-boss-refresh-queue.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { createTestWarehouse, type TestWarehouse } from '../support/warehouse.js';
import { hostRequest } from '../support/hosting-http.js';
import { salesSpec, seedSales, sql } from '../support/refresh-fixtures.js';
import { startFullServer } from '../support/server.js';
import { mintAccessToken } from '../support/tokens.js';
import { runDashpub as dashpubCli } from '../support/cli.js';
import { aUser } from '../support/mothers.js';
import { TOOL_NAMES } from '../../shells/koa/mcp/tools/index.js';

const SECRET_KEY = 'e2e-refresh-secret';

/** Every tool the service declares: the test calls each one. */
const ALL_TOOLS = TOOL_NAMES;

type CallResult = { content: Array<{ type: string; text: string }>; structuredContent?: Record<string, any>; isError?: boolean };

/**
 * Refreshable dashboards end to end: the real server on PostgreSQL, a warehouse database the test
 * creates, a connection added with the `dashpub` CLI, and the official MCP SDK client calling all
 * eighteen tools; pages are read back through the dashboards host.
 */
describe('e2e: refreshable dashboards over MCP with a PostgreSQL warehouse', function () {
  this.timeout(120_000);
  let service: TestDatabase;
  let warehouse: TestWarehouse;
  let server: Awaited<ReturnType<typeof startFullServer>>;
  let client: Client;
  let handle: string;
  let connectionId: string;
  const validator = new AjvJsonSchemaValidator();
  const outputSchemas = new Map<string, unknown>();
  const called = new Set<string>();

  async function call(name: string, args: Record<string, unknown>): Promise<CallResult & { text: string }> {
    // The SDK validates structuredContent against the listed outputSchema itself; check it here too,
    // so a silently missing schema would show.
    const result = (await client.callTool({ name, arguments: args })) as CallResult;
    const schema = outputSchemas.get(name);
    if (schema && !result.isError) {
      expect(result.structuredContent, `${name} returns structuredContent`).to.be.an('object');
      const verdict = validator.getValidator(schema as never)(result.structuredContent);
      expect(verdict.valid, `${name}: ${verdict.errorMessage}`).to.equal(true);
    }
    called.add(name);
    return { ...result, text: result.content[0]!.text };
  }

  async function ok(name: string, args: Record<string, unknown>) {
    const result = await call(name, args);
    expect(result.isError, `${name}: ${result.text}`).to.not.equal(true);
    return result;
  }

  const jsonOf = (text: string): Record<string, any> => JSON.parse(/\nBEGIN_JSON\n([\s\S]*)\nEND_JSON$/.exec(text)![1]!);
  const refreshStatus = async (slug: string) => jsonOf((await ok('get_refresh_status', { slug })).text);

  /** The dashboards host caches metadata for about a second: poll until `check` holds or time runs out. */
  async function eventually<T>(read: () => Promise<T>, check: (value: T) => boolean, timeoutMs = 5_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    let value = await read();
    while (!check(value) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      value = await read();
    }
    return value;
  }

  const page = async (slug: string, file = '') => {
    const res = await hostRequest(server.port, `${handle}.${server.settings.dashboardDomain}`, `/${slug}${file}`);
    expect(res.status, `GET /${slug}${file}`).to.equal(200);
    return res.body.toString('utf8');
  };

  async function waitForRun(slug: string, startedAfter: string | null, timeoutMs = 30_000): Promise<Record<string, any>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const status = await refreshStatus(slug);
      const last = status.last_run as Record<string, any> | null;
      if (last && (startedAfter === null || last.started_at > startedAfter)) return status;
      if (Date.now() > deadline) throw new Error(`no refresh of ${slug} after ${startedAfter}: ${JSON.stringify(status)}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  before(async () => {
    service = await createMigratedTestDatabase();
    warehouse = await createTestWarehouse();
    await seedSales(warehouse.adminUrl);
    await sql(warehouse.adminUrl, 'CREATE TABLE daily_sales AS SELECT * FROM sales');
    // The warehouse is on 127.0.0.1, a private address: allowed explicitly, as an operator would.
    server = await startFullServer({ DATABASE_URL: service.url, SECRET_KEY, ALLOW_PRIVATE_WAREHOUSES: 'true' });
    const container = server.server.app.container;
    const user = await aUser(container.get<AccountStore>(AccountStore), { handle: 'ada', plan: 'pro' });
    handle = user.handle;

    const added = await dashpubCli({ DATABASE_URL: service.url, SECRET_KEY, ALLOW_PRIVATE_WAREHOUSES: 'true' }, ['--json', 'connection', 'add', '--owner', 'ada', '--label', 'Sales DB', '--url', warehouse.url]);
    expect(added.code, added.stderr).to.equal(0);
    const connection = JSON.parse(added.stdout);
    expect(connection).to.include({ label: 'Sales DB', status: 'active' });
    connectionId = connection.id;

    const { access_token: token } = await mintAccessToken(container, { userId: user.id, lock: { kind: 'personal' } });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.settings.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    client = new Client({ name: 'dashpub-refresh-e2e', version: '1.0.0' });
    await client.connect(transport);
    for (const tool of (await client.listTools()).tools) if (tool.outputSchema) outputSchemas.set(tool.name, tool.outputSchema);
  });

  after(async () => {
    await client?.close();
    await server?.close();
    await warehouse?.drop();
    await service?.drop();
  });

  it('lists all eighteen tools, each with a title, an input schema and annotations', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).to.deep.equal([...ALL_TOOLS].sort());
    for (const tool of tools) {
      expect(tool.title, tool.name).to.be.a('string');
      expect(tool.annotations, tool.name).to.include.keys(['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint']);
    }
    expect(client.getInstructions()).to.contain('set_refresh_schedule');
  });

  it('answers list_connections with the spec\'s text, and an empty structured copy the SDK accepts, when there are none', async () => {
    const container = server.server.app.container;
    const user = await aUser(container.get<AccountStore>(AccountStore), { handle: 'newcomer' });
    const { access_token: token } = await mintAccessToken(container, { userId: user.id, lock: { kind: 'personal' } });
    const transport = new StreamableHTTPClientTransport(new URL(`${server.settings.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    const newcomer = new Client({ name: 'dashpub-refresh-e2e-newcomer', version: '1.0.0' });
    await newcomer.connect(transport);
    try {
      const result = await newcomer.callTool({ name: 'list_connections', arguments: {} });
      expect(result.content).to.deep.equal([{ type: 'text', text: 'You have no warehouse connections.' }]);
      expect(result.structuredContent).to.deep.equal({ count: 0, connections: [] });
    } finally {
      await newcomer.close();
    }
  });

  it('finds the warehouse, checks SQL, publishes a refreshable dashboard and refreshes it when the data changes', async () => {
    const listed = await ok('list_connections', {});
    expect(listed.structuredContent!.connections.map((c: { id: string }) => c.id)).to.deep.equal([connectionId]);
    const schema = await ok('introspect_schema', { connection: connectionId });
    expect(schema.structuredContent!.tables.map((t: { name: string }) => t.name)).to.include('daily_sales');
    const checked = await ok('validate_cube_sql', { connection: connectionId, sql: 'SELECT region, sum(amount) AS total FROM daily_sales GROUP BY region' });
    expect(checked.structuredContent!.columns.map((c: { name: string }) => c.name)).to.deep.equal(['region', 'total']);
    const refused = await call('validate_cube_sql', { connection: connectionId, sql: 'DELETE FROM daily_sales' });
    expect(refused.isError).to.equal(true);

    const spec = salesSpec('SELECT day::text AS day, sum(amount) AS total FROM daily_sales GROUP BY day ORDER BY day');
    const published = await ok('publish_dashboard', { path: 'sales', spec, connection: connectionId, name: 'Sales' });
    const url = `${server.settings.dashboardScheme}://${handle}.${server.settings.dashboardDomain}/sales`;
    expect(published.text).to.contain(url);
    const before = await page('sales');
    expect(before).to.contain('180.5');
    expect(await page('sales', '/data.json')).to.contain('180.5');

    await sql(warehouse.adminUrl, `UPDATE daily_sales SET amount = amount * 10 WHERE day = '2024-01-01'`);
    const previous = (await refreshStatus('sales')).last_run?.started_at ?? null;
    const triggered = await ok('trigger_refresh', { slug: 'sales' });
    expect(triggered.text).to.contain('Queued a refresh');
    const status = await waitForRun('sales', previous);
    expect(status.last_run).to.include({ outcome: 'success', trigger: 'manual', error: null });

    expect(await eventually(() => page('sales'), (html) => html.includes('1,805'))).to.contain('1,805');
    expect(await page('sales', '/data.json')).to.contain('1805');
    // get_dashboard returns the bytes the host serves.
    const got = await ok('get_dashboard', { slug: 'sales', include_body: true });
    expect(got.structuredContent?.body?.content ?? got.text).to.contain('1,805');
  });

  it('keeps the last good page when a refresh fails, and reports the error', async () => {
    const good = await page('sales');
    const previous = (await refreshStatus('sales')).last_run.started_at;
    await sql(warehouse.adminUrl, 'ALTER TABLE daily_sales RENAME TO daily_sales_moved');
    try {
      await ok('trigger_refresh', { slug: 'sales' });
      const status = await waitForRun('sales', previous);
      expect(status.last_run.outcome).to.equal('failure');
      expect(status.last_run.error).to.contain('relation "daily_sales" does not exist');
      await new Promise((resolve) => setTimeout(resolve, 1_200));
      expect(await page('sales')).to.equal(good);
    } finally {
      await sql(warehouse.adminUrl, 'ALTER TABLE daily_sales_moved RENAME TO daily_sales');
    }
  });

  it('runs a scheduled refresh when its time comes', async () => {
    const set = await ok('set_refresh_schedule', { slug: 'sales', schedule: '*/5 * * * *', timezone: 'UTC' });
    expect(set.structuredContent!.next_runs).to.have.length(3);
    await sql(warehouse.adminUrl, `UPDATE daily_sales SET amount = 1000 WHERE day = '2024-01-03'`);
    const previous = (await refreshStatus('sales')).last_run.started_at;
    // Make the run due now (to the whole second: the app writes millisecond times and claims by equality),
    // then let the minute tick come round (sent directly instead of waiting up to 60 s).
    const container = server.server.app.container;
    await container.get(DataSource).query(`UPDATE refresh_schedules SET next_run_at = date_trunc('second', now()) - interval '1 second'`);
    const ticked = Date.now();
    await container.get(PgBossRefreshQueue).sendTick();
    const status = await waitForRun('sales', previous);
    expect(status.last_run).to.include({ outcome: 'success', trigger: 'schedule' });
    // The claim moves the schedule to its first five-minute mark after the tick. Compared with the tick's
    // time, not with now: a run that ends just past a mark would otherwise see its next run in the past.
    const next = Date.parse(status.next_run_at);
    expect(next % 300_000).to.equal(0);
    expect(next).to.be.above(ticked).and.at.most(Date.now() + 300_000);
    expect(await eventually(() => page('sales'), (html) => html.includes('2,000'))).to.contain('2,000'); // 1000 north + 1000 south on 2024-01-03
  });

  it('versions, renames and deletes the dashboard through the remaining tools', async () => {
    await ok('publish_dashboard', { path: 'sales', spec: { ...salesSpec('SELECT day::text AS day, sum(amount) AS total FROM daily_sales GROUP BY day ORDER BY day'), title: 'Sales v2' }, connection: connectionId });
    await ok('update_dashboard', { slug: 'sales', tags: ['finance'] });
    expect((await ok('list_dashboards', { tag: 'finance' })).structuredContent!.dashboards).to.have.length(1);
    const versions = await ok('list_dashboard_versions', { slug: 'sales' });
    const first = versions.structuredContent?.versions?.at(-1)?.version_id ?? /- ([0-9a-f-]{36}) \(#1,/.exec(versions.text)![1];
    await ok('get_dashboard_version', { slug: 'sales', version_id: first });
    await ok('update_dashboard_version', { slug: 'sales', version_id: first, name: 'launch' });
    await ok('restore_dashboard_version', { slug: 'sales', version_id: first });
    await ok('whoami', {});
    await ok('list_workspaces', {});
    await ok('rename_dashboard', { slug: 'sales', new_slug: 'revenue' });
    const old = await eventually(() => hostRequest(server.port, `${handle}.${server.settings.dashboardDomain}`, '/sales'), (res) => res.status === 301);
    expect(old.status).to.equal(301);
    expect(old.headers.location).to.equal(`${server.settings.dashboardScheme}://${handle}.${server.settings.dashboardDomain}/revenue`);
    await ok('delete_dashboard', { slug: 'revenue' });
    expect([...called].sort()).to.deep.equal([...ALL_TOOLS].sort());
  });
});
