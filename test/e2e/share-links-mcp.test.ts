import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import pg from 'pg';
import { AccountStore } from '../../application/ports/account-store.js';
import { runDashpub as dashpub } from '../support/cli.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { aPrincipal, aUser, aWorkspace } from '../support/mothers.js';
import { json, registry } from '../support/refresh-fixtures.js';
import { startFullServer } from '../support/server.js';
import { mintAccessToken, type MintLock } from '../support/tokens.js';

type CallResult = { content: Array<{ type: string; text: string }>; isError?: boolean };
type Query = (...args: unknown[]) => unknown;

/**
 * get_dashboard mentions a dashboard's active share links and that the web app manages them: through the
 * MCP SDK client on PostgreSQL, with the links made by the CLI. No tool makes, lists or changes a link.
 */
describe('e2e: get_dashboard mentions share links (PostgreSQL, MCP SDK client)', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let server: Awaited<ReturnType<typeof startFullServer>>;
  const clients: Client[] = [];
  let ada: Client;
  let bob: Client;
  let adaId: string;

  const connect = async (userId: string, lock: MintLock = { kind: 'personal' }) => {
    const token = (await mintAccessToken(server.server.app.container, { userId, lock })).access_token;
    const client = new Client({ name: 'share-links-mcp', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.settings.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    clients.push(client);
    return client;
  };
  const call = async (client: Client, name: string, args: Record<string, unknown>) => {
    const result = (await client.callTool({ name, arguments: args })) as CallResult;
    expect(result.isError, result.content[0]?.text).to.not.equal(true);
    return result.content[0]!.text;
  };
  const share = async (args: string[]) => {
    const run = await dashpub({ DATABASE_URL: database.url, REDIS_URL: '' }, ['--json', 'share', ...args]);
    expect(run.code, run.stderr).to.equal(0);
    return JSON.parse(run.stdout) as { id: string };
  };

  before(async () => {
    database = await createMigratedTestDatabase();
    server = await startFullServer({ DATABASE_URL: database.url, REDIS_URL: '' });
    const accounts = server.server.app.container.get<AccountStore>(AccountStore);
    adaId = (await aUser(accounts, { handle: 'ada' })).id;
    const bobId = (await aUser(accounts, { handle: 'bob' })).id;
    [ada, bob] = [await connect(adaId), await connect(bobId)];
    await call(ada, 'publish_dashboard', { path: 'sales', body: '<h1>ada</h1>' });
    await call(bob, 'publish_dashboard', { path: 'sales', body: '<h1>bob</h1>' });
  });
  after(async () => {
    for (const client of clients) await client.close();
    await server?.close();
    await database?.drop();
  });

  const manageUrl = () => `${server.settings.appUrl}/dashboards/ada/sales`;
  const jsonOf = (text: string) => JSON.parse(text.slice(text.indexOf('BEGIN_JSON\n') + 11, text.indexOf('\nEND_JSON')));

  it('says nothing of share links in the text while none is active, and answers share_links with where they are managed', async () => {
    const text = await call(ada, 'get_dashboard', { slug: 'sales' });
    expect(text.split('\nBEGIN_JSON')[0]).to.not.match(/share link/i);
    expect(jsonOf(text).share_links).to.deep.equal({ active: 0, manage_url: manageUrl() });
  });

  it('counts only active links of this dashboard, never another owner\'s of the same slug, and names the web app', async () => {
    const links = [await share(['create', '--owner', 'ada', '--slug', 'sales']), await share(['create', '--owner', 'ada', '--slug', 'sales', '--expires-in', '2h'])];
    await share(['create', '--owner', 'ada', '--slug', 'sales', '--label', 'paused one']).then((paused) => share(['pause', paused.id]));
    const text = await call(ada, 'get_dashboard', { slug: 'sales' });
    expect(text.split('\n')[1]).to.equal(`2 share links are active (anyone holding one can view this dashboard); share links are managed in the web app at ${manageUrl()}`);
    expect(jsonOf(text).share_links).to.deep.equal({ active: 2, manage_url: manageUrl() });
    expect(text).to.not.contain(links[0]!.id).and.not.contain('_share/');

    const bobs = await call(bob, 'get_dashboard', { slug: 'sales' });
    expect(jsonOf(bobs).share_links).to.deep.equal({ active: 0, manage_url: `${server.settings.appUrl}/dashboards/bob/sales` });

    await share(['revoke', links[0]!.id]);
    const one = await call(ada, 'get_dashboard', { slug: 'sales' });
    expect(one.split('\n')[1]).to.equal(`1 share link is active (anyone holding one can view this dashboard); share links are managed in the web app at ${manageUrl()}`);
  });

  it('tells a workspace member the count too (the dashboard is visible outside), pointing at the workspace\'s page', async () => {
    const accounts = server.server.app.container.get<AccountStore>(AccountStore);
    const acme = await aWorkspace(accounts, { slug: 'acme' });
    const carolId = (await aUser(accounts, { handle: 'carol' })).id;
    await accounts.addMember(acme.id, carolId, 'member');
    const carol = await connect(carolId, { kind: 'workspace', workspaceId: acme.id });
    await call(carol, 'publish_dashboard', { path: 'roadmap', body: '<p>team</p>' });
    await share(['create', '--workspace', 'acme', '--slug', 'roadmap']);
    const text = await call(carol, 'get_dashboard', { slug: 'roadmap' });
    expect(jsonOf(text).share_links).to.deep.equal({ active: 1, manage_url: `${server.settings.appUrl}/dashboards/acme/roadmap` });
  });

  it('offers no tool that makes, lists or changes share links (passwords never pass through an AI client)', async () => {
    const { tools } = await ada.listTools();
    expect(tools).to.have.length(18);
    expect(tools.filter((t) => /share/i.test(`${t.name} ${t.description}`)).map((t) => t.name)).to.deep.equal([]);
    expect(tools.filter((t) => JSON.stringify(t.inputSchema).includes('password'))).to.deep.equal([]);
  });

  it('reads share links in one statement on top of what get_dashboard read before', async () => {
    const original = pg.Client.prototype.query as Query;
    const statements: string[] = [];
    (pg.Client.prototype as unknown as { query: Query }).query = function (this: unknown, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
      statements.push(String(text ?? ''));
      return original.apply(this, args);
    } as Query;
    try {
      const answer = await registry(server.server.app.container).call(aPrincipal(adaId), 'get_dashboard', { slug: 'sales' });
      expect(json(answer).share_links.active).to.equal(1);
    } finally {
      (pg.Client.prototype as unknown as { query: Query }).query = original;
    }
    expect(statements.filter((s) => /\bshare_links\b/.test(s)), statements.join('\n')).to.have.length(1);
  });
});
