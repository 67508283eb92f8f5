import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ManageConnections } from '../../application/connections/manage-connections.js';
import { AccountStore } from '../../application/ports/account-store.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { aUser } from '../support/mothers.js';
import { startFullServer } from '../support/server.js';
import { mintAccessToken } from '../support/tokens.js';
import { createTestWarehouse, sql, type TestWarehouse } from '../support/warehouse.js';

type CallResult = { content: Array<{ type: string; text: string }>; isError?: boolean };
type Json = Record<string, any>;

const SALES = [
  { month: '2026-01', region: 'Atlantis', revenue: 120, cost: 80 },
  { month: '2026-02', region: 'Lemuria', revenue: 150, cost: 90 },
];
/** Six panels over one query on a warehouse and one inline data set. */
const SPEC = {
  title: 'Six panels',
  queries: { count: { sql: 'SELECT count(*)::int AS n\nFROM accounts' } },
  data: { sales: SALES },
  panels: [
    { id: 'total', type: 'stat', title: 'Dashboards', query: 'count', value: 'n' },
    { id: 'trend', type: 'line', title: 'Revenue', query: 'sales', x: 'month', y: ['revenue', 'cost'] },
    { id: 'bars', type: 'bar', title: 'By region', query: 'sales', x: 'region', y: 'revenue' },
    { id: 'share', type: 'pie', title: 'Share', query: 'sales', x: 'region', y: 'revenue' },
    { id: 'dots', type: 'scatter', title: 'Cost vs revenue', query: 'sales', x: 'cost', y: 'revenue' },
    { id: 'rows', type: 'table', title: 'Rows', query: 'sales' },
  ],
};

/**
 * publish_dashboard's `patch` and get_dashboard's `summary` through the official MCP SDK client, on
 * PostgreSQL: a summary instead of the spec, then small changes by id that publish as new versions.
 */
describe('e2e: summary and patch of a spec dashboard (PostgreSQL, MCP SDK client)', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let warehouse: TestWarehouse;
  let connection: string;
  let server: Awaited<ReturnType<typeof startFullServer>>;
  const clients: Client[] = [];
  let ada: Client;
  let bob: Client;

  const connect = async (userId: string) => {
    const token = (await mintAccessToken(server.server.app.container, { userId, lock: { kind: 'personal' } })).access_token;
    const client = new Client({ name: 'spec-patch-mcp', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.settings.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    clients.push(client);
    return client;
  };
  const raw = async (client: Client, name: string, args: Json) => (await client.callTool({ name, arguments: args })) as CallResult;
  const jsonOf = (text: string): Json => JSON.parse(text.slice(text.indexOf('BEGIN_JSON\n') + 11, text.indexOf('\nEND_JSON')));
  const call = async (client: Client, name: string, args: Json) => {
    const result = await raw(client, name, args);
    expect(result.isError, result.content[0]?.text).to.not.equal(true);
    return result.content[0]!.text;
  };
  const refused = async (client: Client, name: string, args: Json) => {
    const result = await raw(client, name, args);
    expect(result.isError, result.content[0]?.text).to.equal(true);
    return result.content[0]!.text;
  };
  const summaryOf = async (slug = 'big') => jsonOf(await call(ada, 'get_dashboard', { slug, summary: true })).summary;
  const versionOf = async (slug = 'big') => jsonOf(await call(ada, 'get_dashboard', { slug })).dashboard.current_version_id as string;

  before(async () => {
    database = await createMigratedTestDatabase();
    // A warehouse rather than `self`, whose sandbox a loaded machine may start too slowly for its query limit.
    warehouse = await createTestWarehouse();
    await sql(warehouse.adminUrl, 'CREATE TABLE accounts AS SELECT generate_series(1, 3) AS id');
    // The warehouse is on 127.0.0.1, a private address: allowed explicitly, as an operator would.
    server = await startFullServer({ DATABASE_URL: database.url, REDIS_URL: '', ALLOW_PRIVATE_WAREHOUSES: 'true' });
    const accounts = server.server.app.container.get<AccountStore>(AccountStore);
    const adaId = (await aUser(accounts, { handle: 'ada', plan: 'pro' })).id;
    [ada, bob] = [await connect(adaId), await connect((await aUser(accounts, { handle: 'bob' })).id)];
    const manage = server.server.app.container.get(ManageConnections);
    connection = (await manage.create({ ownerUserId: adaId, workspaceId: null, label: 'Warehouse', url: warehouse.url })).id;
    await call(ada, 'publish_dashboard', { path: 'big', spec: SPEC, connection });
    await call(ada, 'publish_dashboard', { path: 'page', body: '<h1>file</h1>' });
  });
  after(async () => {
    for (const client of clients) await client.close();
    await server?.close();
    await database?.drop();
    await warehouse?.drop();
  });

  it('summarizes the spec without data rows, and leaves the answer without the flag as it was', async () => {
    const text = await call(ada, 'get_dashboard', { slug: 'big', summary: true });
    const summary = jsonOf(text).summary;
    expect(summary.panels).to.deep.equal(SPEC.panels.map((p) => ({ id: p.id, type: p.type, title: p.title, query: p.query })));
    expect(summary.queries).to.deep.equal([{ id: 'count', sql_first_line: 'SELECT count(*)::int AS n', sql_lines: 2, columns: ['n'], rows: 1 }]);
    // Stored as jsonb, whose key order is its own.
    expect(summary.data.map((d: Json) => [d.id, d.rows])).to.deep.equal([['sales', 2]]);
    expect(summary.data[0].columns).to.have.members(['month', 'region', 'revenue', 'cost']);
    expect(summary).to.include({ title: 'Six panels', description: null, bytes: Buffer.byteLength(JSON.stringify(SPEC)) });
    expect(summary.params).to.deep.equal([]);
    expect(text).to.not.contain('Atlantis');
    expect(text).to.contain('Spec: 6 panel(s), 1 query(ies), 1 inline data set(s), 0 param(s), 0 alert(s)');

    const plain = await call(ada, 'get_dashboard', { slug: 'big' });
    expect(Object.keys(jsonOf(plain))).to.deep.equal(['dashboard', 'alias_of', 'body', 'share_links']);
    expect(await call(ada, 'get_dashboard', { slug: 'big', summary: false })).to.equal(plain);
    expect(plain).to.not.contain('Spec:');

    const file = jsonOf(await call(ada, 'get_dashboard', { slug: 'page', summary: true }));
    expect(file.summary).to.equal(null);
  });

  it('adds, moves, replaces and removes panels in one patch that publishes a new version', async () => {
    const before = await versionOf();
    const text = await call(ada, 'publish_dashboard', {
      path: 'big',
      patch: [
        { op: 'add_panel', after: 'total', panel: { id: 'note', type: 'text', text: 'Patched **note**' } },
        { op: 'move_panel', id: 'rows', before: 'total' },
        { op: 'replace_panel', id: 'share', panel: { type: 'bar', title: 'Share as bars', query: 'sales', x: 'region', y: 'cost' } },
        { op: 'remove_panel', id: 'dots' },
      ],
    });
    const published = jsonOf(text);
    expect(published).to.include({ mode: 'spec', dry_run: false });
    expect(published.version_id).to.not.equal(before);
    expect(published).to.not.have.property('summary');
    // The connection is kept, as on any republish that names none.
    expect(published.dashboard.connection).to.equal(connection);
    expect(await versionOf()).to.equal(published.version_id);

    const summary = await summaryOf();
    expect(summary.panels.map((p: Json) => `${p.id}:${p.type}`)).to.deep.equal(['rows:table', 'total:stat', 'note:text', 'trend:line', 'bars:bar', 'share:bar']);
    expect(summary.panels[5].title).to.equal('Share as bars');
    const page = jsonOf(await call(ada, 'get_dashboard', { slug: 'big', include_body: true })).body.content as string;
    expect(page).to.contain('<strong>note</strong>').and.contain('Share as bars').and.not.contain('Cost vs revenue');
  });

  it('refuses a failing operation as a whole, naming it, and leaves the version as it was', async () => {
    const before = await versionOf();
    const summary = await summaryOf();
    expect(await refused(ada, 'publish_dashboard', { path: 'big', patch: [{ op: 'set_title', title: 'Changed' }, { op: 'remove_panel', id: 'nope' }] }))
      .to.equal('patch[1].id "nope" names no panel');
    expect(await refused(ada, 'publish_dashboard', { path: 'big', patch: [{ op: 'remove_panel', id: 'trend' }, { op: 'add_panel', panel: { id: 'x', type: 'line', query: 'sales', x: 'month' } }] }))
      .to.equal('patch[1].panel.y is required for a line panel');
    expect(await refused(ada, 'publish_dashboard', { path: 'big', patch: [{ op: 'set_query', id: 'count', sql: 'DELETE FROM accounts' }] }))
      .to.match(/^patch\[0\]\.sql: /);
    expect(await versionOf()).to.equal(before);
    expect(await summaryOf()).to.deep.equal(summary);
  });

  it('answers a dry-run patch with the resulting summary and publishes nothing', async () => {
    const before = await versionOf();
    const text = await call(ada, 'publish_dashboard', {
      path: 'big',
      dry_run: true,
      patch: [{ op: 'remove_panel', id: 'note' }, { op: 'set_query', id: 'count', sql: 'SELECT 2 AS m' }, { op: 'set_title', title: 'Renamed' }],
    });
    const answer = jsonOf(text);
    expect(answer).to.include({ dry_run: true, version_id: null });
    expect(answer.summary.title).to.equal('Renamed');
    expect(answer.summary.panels.map((p: Json) => p.id)).to.deep.equal(['rows', 'total', 'trend', 'bars', 'share']);
    // The query's SQL changed, so its columns from the last run no longer say anything.
    expect(answer.summary.queries).to.deep.equal([{ id: 'count', sql_first_line: 'SELECT 2 AS m', sql_lines: 1, columns: null, rows: null }]);
    expect(text).to.contain('Nothing was written.');
    // A dry run prepares the patched query on its connection, so a missing column is refused now, named by operation.
    expect(await refused(ada, 'publish_dashboard', { path: 'big', dry_run: true, patch: [{ op: 'set_title', title: 'x' }, { op: 'set_query', id: 'count', sql: 'SELECT nope FROM accounts' }] }))
      .to.match(/^patch\[1\]\.sql: query "count": .*nope/);
    expect(await versionOf()).to.equal(before);
    expect((await summaryOf()).title).to.equal('Six panels');
  });

  it('refuses another owner\'s dashboard exactly as a missing one, and never touches it', async () => {
    const before = await versionOf();
    const patch = [{ op: 'set_title', title: 'Bob was here' }];
    expect(await refused(bob, 'publish_dashboard', { path: 'big', patch })).to.equal('No dashboard named "big" in your account');
    expect(await refused(bob, 'publish_dashboard', { path: 'nothing', patch })).to.equal('No dashboard named "nothing" in your account');
    expect(await refused(bob, 'get_dashboard', { slug: 'big', summary: true })).to.equal('No dashboard named "big" in your account');
    expect(await refused(bob, 'publish_dashboard', { path: 'big', patch, dry_run: true })).to.equal('No dashboard named "big" in your account');
    expect(await versionOf()).to.equal(before);
    expect((await summaryOf()).title).to.equal('Six panels');
  });

  it('takes a patch alone, on the bare slug of a spec dashboard', async () => {
    const patch = [{ op: 'set_title', title: 'x' }];
    const alone = 'pass "patch" alone, without "body" or "spec": a patch changes the dashboard\'s current spec';
    expect(await refused(ada, 'publish_dashboard', { path: 'big', patch, spec: SPEC })).to.equal(alone);
    expect(await refused(ada, 'publish_dashboard', { path: 'big', patch, body: '<p>x</p>' })).to.equal(alone);
    expect(await refused(ada, 'publish_dashboard', { path: 'big/index.html', patch })).to.equal('path "big/index.html": a patch changes the whole dashboard\'s spec; pass the bare slug "big"');
    expect(await refused(ada, 'publish_dashboard', { path: 'page', patch })).to.equal('dashboard "page" was published as a file and has no spec to patch; publish a spec to it instead');
    expect(await refused(ada, 'publish_dashboard', { path: 'big', patch: 7 })).to.equal('patch must be an array or a string');
    expect(await refused(ada, 'publish_dashboard', { path: 'big', patch: [{ op: 'drop' }] })).to.match(/^patch\[0\]\.op must be one of /);
  });

  it('escapes what a patch writes into the page like any spec text', async () => {
    const attack = '<script>alert(1)</script><img src=x onerror=alert(2)>';
    await call(ada, 'publish_dashboard', { path: 'big', patch: [{ op: 'set_title', title: attack }, { op: 'replace_panel', id: 'bars', panel: { type: 'table', title: attack, query: 'sales' } }] });
    const page = jsonOf(await call(ada, 'get_dashboard', { slug: 'big', include_body: true })).body.content as string;
    expect(page).to.contain('&lt;script&gt;alert(1)&lt;/script&gt;').and.not.contain('<script>').and.not.contain('<img src=x');
  });

  it('sets the time zone with set_timezone: the table\'s instants move to it, and a bad zone is refused by operation', async () => {
    const events = [{ at: '2026-03-01T12:00:00Z', what: 'launch' }];
    await call(ada, 'publish_dashboard', { path: 'zoned', spec: { title: 'Zoned', data: { events }, panels: [{ id: 'log', type: 'table', query: 'events' }] } });
    const pageOf = async () => jsonOf(await call(ada, 'get_dashboard', { slug: 'zoned', include_body: true })).body.content as string;
    expect(await pageOf()).to.contain('at <span class="zone">(UTC)</span>');
    const before = await versionOf('zoned');
    expect(await refused(ada, 'publish_dashboard', { path: 'zoned', patch: [{ op: 'set_title', title: 'x' }, { op: 'set_timezone', timezone: 'Europe/Nowhere' }] }))
      .to.equal('patch[1].timezone must be an IANA time zone such as "UTC" or "Europe/Paris" (got "Europe/Nowhere")');
    expect(await versionOf('zoned')).to.equal(before);

    await call(ada, 'publish_dashboard', { path: 'zoned', patch: [{ op: 'set_timezone', timezone: 'Asia/Tokyo' }] });
    expect(await versionOf('zoned')).to.not.equal(before);
    const tokyo = await pageOf();
    expect(tokyo).to.contain('at <span class="zone">(Asia/Tokyo)</span>').and.contain('2026-03-01 21:00');
    await call(ada, 'publish_dashboard', { path: 'zoned', patch: [{ op: 'set_timezone', timezone: null }] });
    expect(await pageOf()).to.contain('at <span class="zone">(UTC)</span>').and.contain('2026-03-01 12:00');
  });

  it('keeps the publish metadata semantics: given fields change, omitted ones stay', async () => {
    await call(ada, 'publish_dashboard', { path: 'big', patch: [{ op: 'set_description', description: 'Now described' }], tags: ['kept'], name: 'Big one' });
    await call(ada, 'publish_dashboard', { path: 'big', patch: [{ op: 'set_description', description: null }] });
    const found = jsonOf(await call(ada, 'get_dashboard', { slug: 'big', summary: true }));
    expect(found.dashboard).to.include({ name: 'Big one' });
    expect(found.dashboard.tags).to.deep.equal(['kept']);
    expect(found.summary.description).to.equal(null);
  });
});
