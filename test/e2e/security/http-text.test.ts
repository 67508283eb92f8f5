import { expect } from 'chai';
import { AccountStore } from '../../../application/ports/account-store.js';
import { createMigratedTestDatabase, type TestDatabase } from '../../support/database.js';
import { request } from '../../support/http.js';
import { csrfOf, WebClient } from '../../support/oauth-server.js';
import { startFullServer } from '../../support/server.js';
import { mintAccessToken } from '../../support/tokens.js';

type Server = Awaited<ReturnType<typeof startFullServer>>;

const DATABASE_TEXT = /invalid byte sequence|violates|duplicate key|syntax error at|relation "|index row|value too long|unsupported Unicode|QueryFailedError|SQLSTATE|invalid input syntax/i;

/** NUL bytes in the web app's forms and the OAuth endpoints (issue 30, item 10): never database text, never a 500. */
describe('security: NUL bytes in forms and OAuth requests', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let server: Server;
  let web: WebClient;

  before(async () => {
    database = await createMigratedTestDatabase();
    server = await startFullServer({ DATABASE_URL: database.url });
    web = new WebClient(server.url, server.hosts.app);
    const signedUp = await web.post('/sign-up', { csrf: csrfOf(await web.get('/sign-up')), handle: 'nul', email: 'nul@example.com', password: 'correct horse battery' });
    expect(signedUp.status).to.equal(303);
    const user = await server.server.app.container.get<AccountStore>(AccountStore).findUserByHandle('nul');
    const token = (await mintAccessToken(server.server.app.container, { userId: user!.id, lock: { kind: 'personal' } })).access_token;
    const published = await request({
      url: `${server.url}/mcp`,
      method: 'POST',
      host: server.hosts.api,
      headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'publish_dashboard', arguments: { path: 'page', body: '<h1>page</h1>' } } },
    });
    expect(published.json().result.isError, published.text).to.equal(undefined);
  });

  after(async () => {
    await server?.close();
    await database?.drop();
  });

  it("refuses a NUL byte in a web app form with the service's own text, not a server error", async () => {
    const page = await web.get('/dashboards/nul/page');
    expect(page.status).to.equal(200);
    const csrf = csrfOf(page);
    for (const [path, fields] of [
      ['/dashboards/nul/page/settings', { name: 'zq\u0000name', tags: 'ok', visibility: 'public' }],
      ['/dashboards/nul/page/settings', { name: 'Fine', tags: 'zq\u0000tag', visibility: 'public' }],
      ['/dashboards/nul/page/rename', { new_slug: 'a\u0000b' }],
      ['/dashboards/nul/page/schedule', { schedule: '0 6 * * *', timezone: 'UTC\u0000' }],
      ['/sign-in', { email: 'a\u0000b@example.com', password: 'x' }],
    ] as const) {
      const res = await web.post(path, { csrf, ...fields });
      expect(res.status, `${path}: ${res.text.slice(0, 200)}`).to.equal(400);
      expect(res.text, path).to.include('must not contain a NUL character');
      expect(res.text, path).to.not.match(DATABASE_TEXT);
    }
    expect((await web.get('/dashboards/nul/page')).text).to.not.include('zq');
  });

  it("answers OAuth requests carrying NUL bytes with the service's own refusal", async () => {
    const api = new URL(server.settings.baseUrl).origin;
    const form = (body: string) =>
      request({ url: `${server.url}/token`, method: 'POST', host: server.hosts.api, headers: { 'content-type': 'application/x-www-form-urlencoded', origin: api }, body });
    const answers = [
      await form('grant_type=authorization_code&code=a%00b&code_verifier=x&client_id=c%00d&redirect_uri=http%3A%2F%2F127.0.0.1%2F'),
      await form('grant_type=refresh_token&refresh_token=a%00b&client_id=c%00d'),
      await request({ url: `${server.url}/authorize?response_type=code&client_id=a%00b&redirect_uri=http%3A%2F%2F127.0.0.1%2F&code_challenge=x&code_challenge_method=S256`, host: server.hosts.api }),
    ];
    for (const res of answers) {
      expect(res.status, res.text.slice(0, 300)).to.be.within(400, 499);
      expect(res.text).to.not.match(DATABASE_TEXT);
    }
  });
});
