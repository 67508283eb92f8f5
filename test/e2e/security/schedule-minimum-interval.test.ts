import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AccountStore } from '../../../application/ports/account-store.js';
import { createMigratedTestDatabase, type TestDatabase } from '../../support/database.js';
import { aUser } from '../../support/mothers.js';
import { startFullServer } from '../../support/server.js';
import { mintAccessToken } from '../../support/tokens.js';

type CallResult = { content: Array<{ type: string; text: string }>; structuredContent?: Record<string, unknown>; isError?: boolean };

/**
 * Issue 30, item 16: `* * * * *` was accepted on any plan, keeping a sandbox (or a warehouse) busy every
 * minute. Through set_refresh_schedule with the MCP SDK client on PostgreSQL: a schedule whose shortest
 * gap between runs is under the caller's plan minimum (15 minutes free, 1 minute pro) is refused, naming it.
 */
describe('security: minimum refresh interval per plan (set_refresh_schedule)', function () {
  this.timeout(90_000);
  let database: TestDatabase;
  let server: Awaited<ReturnType<typeof startFullServer>>;
  const clients: Client[] = [];

  const connect = async (handle: string, plan: 'free' | 'pro') => {
    const container = server.server.app.container;
    const user = await aUser(container.get<AccountStore>(AccountStore), { handle, plan });
    const token = (await mintAccessToken(container, { userId: user.id, lock: { kind: 'personal' } })).access_token;
    const client = new Client({ name: 'schedule-interval', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${server.settings.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
    clients.push(client);
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = (await client.callTool({ name, arguments: args })) as CallResult;
      return { isError: result.isError === true, text: result.content[0]!.text, structured: result.structuredContent };
    };
    const spec = { title: 'Count', queries: { n: { sql: 'SELECT 1 AS n' } }, panels: [{ id: 'n', type: 'stat', title: 'N', query: 'n', value: 'n' }] };
    const published = await call('publish_dashboard', { path: 'counts', spec, connection: 'self', name: 'Counts' });
    expect(published.isError, published.text).to.equal(false);
    return (schedule: string) => call('set_refresh_schedule', { slug: 'counts', schedule, timezone: 'UTC' });
  };

  before(async () => {
    database = await createMigratedTestDatabase();
    server = await startFullServer({ DATABASE_URL: database.url, REDIS_URL: '' });
  });
  after(async () => {
    for (const client of clients) await client.close();
    await server?.close();
    await database?.drop();
  });

  it('refuses every-minute and uneven fast crons on the free plan, naming the minimum; accepts 15 minutes and slower', async () => {
    const schedule = await connect('frida', 'free');
    expect(await schedule('* * * * *')).to.deep.include({
      isError: true,
      text:
        'schedule "* * * * *" runs as often as every 1 minute; the free plan refreshes at most every 15 minutes. ' +
        'Choose a slower schedule such as "*/15 * * * *", or move to the pro plan (every 1 minute).',
    });
    // Uneven gaps: two runs a minute apart each hour, or across midnight on consecutive days.
    for (const [cron, gap] of [['0,1 * * * *', '1 minute'], ['*/10 * * * *', '10 minutes'], ['*/7 * * * *', '4 minutes'], ['0,50 0,23 * * *', '10 minutes']] as const) {
      const refused = await schedule(cron);
      expect(refused.isError, cron).to.equal(true);
      expect(refused.text).to.contain(`schedule "${cron}" runs as often as every ${gap}; the free plan refreshes at most every 15 minutes.`);
    }
    for (const cron of ['*/15 * * * *', '0 * * * *', '0,50 0,23 * * 1', '0 6 * * *']) {
      const accepted = await schedule(cron);
      expect(accepted.isError, `${cron}: ${accepted.text}`).to.equal(false);
      expect(accepted.structured).to.deep.include({ schedule: cron });
    }
  });

  it('accepts every minute on the pro plan', async () => {
    const schedule = await connect('pablo', 'pro');
    const accepted = await schedule('* * * * *');
    expect(accepted.isError, accepted.text).to.equal(false);
  });
});
