import { expect } from 'chai';
import { AccountStore } from '../../../application/ports/account-store.js';
import { createMigratedTestDatabase, type TestDatabase } from '../../support/database.js';
import { request } from '../../support/http.js';
import { startFullServer } from '../../support/server.js';
import { mintAccessToken } from '../../support/tokens.js';
import { aUser } from '../../support/mothers.js';
import { FOREIGN_ORIGIN } from '../../../shells/koa/mcp/endpoint.js';

type Server = Awaited<ReturnType<typeof startFullServer>>;

/** Origin on /mcp against DNS rebinding (issue 30, item 14), over HTTP against the real server. */
describe('security: Origin on /mcp', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let server: Server;
  let token: string;

  before(async () => {
    database = await createMigratedTestDatabase();
    server = await startFullServer({ DATABASE_URL: database.url, MCP_ALLOWED_ORIGINS: 'https://chat.example.test, http://localhost:6274' });
    const user = await aUser(server.server.app.container.get<AccountStore>(AccountStore), { handle: 'origin' });
    token = (await mintAccessToken(server.server.app.container, { userId: user.id, lock: { kind: 'personal' } })).access_token;
  });

  after(async () => {
    await server?.close();
    await database?.drop();
  });

  const whoami = (origin?: string, authorized = true) =>
    request({
      url: `${server.url}/mcp`,
      method: 'POST',
      host: server.hosts.api,
      headers: {
        accept: 'application/json, text/event-stream',
        ...(authorized ? { authorization: `Bearer ${token}` } : {}),
        ...(origin === undefined ? {} : { origin }),
      },
      body: { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'whoami', arguments: {} } },
    });

  it('answers a request with no Origin (a native client)', async () => {
    const res = await whoami();
    expect(res.status).to.equal(200);
    expect(res.json().result.content[0].text).to.include('origin');
  });

  it("answers requests from the service's own origins and the listed ones", async () => {
    for (const origin of [new URL(server.settings.baseUrl).origin, new URL(server.settings.appUrl).origin, 'https://chat.example.test', 'http://localhost:6274']) {
      const res = await whoami(origin);
      expect(res.status, origin).to.equal(200);
      expect(res.json().result.isError, origin).to.equal(undefined);
    }
  });

  it('refuses any other Origin with 403 and a JSON-RPC error, before the token is looked at', async () => {
    const rebinding = `http://attacker.example:${server.port}`;
    for (const origin of [rebinding, 'null', `http://alice.${server.settings.dashboardDomain}`, 'https://chat.example.test.evil.example', 'http://127.0.0.1:1']) {
      for (const authorized of [true, false]) {
        const res = await whoami(origin, authorized);
        expect(res.status, origin).to.equal(403);
        expect(res.headers['content-type']).to.match(/^application\/json/);
        expect(res.json(), origin).to.deep.equal({ jsonrpc: '2.0', id: null, error: { code: -32600, message: FOREIGN_ORIGIN } });
      }
    }
  });
});
