import { expect } from 'chai';
import { DataSource } from 'typeorm';
import { AccountStore } from '../../application/ports/account-store.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { createTestWarehouse, type TestWarehouse } from '../support/warehouse.js';
import { request } from '../support/http.js';
import { csrfOf, WebClient } from '../support/oauth-server.js';
import { startFullServer } from '../support/server.js';

const idsOn = (html: string) => [...html.matchAll(/name="id" value="([0-9a-f-]{36})"/g)].map((m) => m[1]!).filter((id, i, all) => all.indexOf(id) === i);

/** The web app's `/connections` page over HTTP, the way a browser without JavaScript uses it, on PostgreSQL. */
describe('e2e: warehouse connections page (PostgreSQL)', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let warehouse: TestWarehouse;
  let server: Awaited<ReturnType<typeof startFullServer>>;
  let web: WebClient;

  before(async () => {
    database = await createMigratedTestDatabase();
    warehouse = await createTestWarehouse();
    server = await startFullServer({ DATABASE_URL: database.url, SECRET_KEY: 'connections-page-secret', REDIS_URL: '' });
    web = new WebClient(server.url, server.hosts.app);
    const form = await web.get('/sign-up');
    const signedUp = await web.post('/sign-up', { csrf: csrfOf(form), handle: 'pat', email: 'pat@example.com', password: 'correct horse battery' });
    expect(signedUp.status).to.equal(303);
  });

  after(async () => {
    await server?.close();
    await warehouse?.drop();
    await database?.drop();
  });

  it('sends a visitor who is not signed in to sign in and back', async () => {
    const res = await request({ url: `${server.url}/connections`, host: server.hosts.app });
    expect(res.status).to.equal(303);
    expect(res.headers.location).to.equal('/sign-in?return_to=%2Fconnections');
  });

  it('is linked from the account page and refuses a free plan with the reason', async () => {
    expect((await web.get('/account')).text).to.contain('href="/connections"');
    const page = await web.get('/connections');
    expect(page.status).to.equal(200);
    expect(page.headers['content-security-policy']).to.contain("frame-ancestors 'none'");
    expect(page.text).to.contain('You have no warehouse connections.');
    const refused = await web.post('/connections/add', { csrf: csrfOf(page), label: 'Sales', url: warehouse.url, workspace: '' });
    expect(refused.status).to.equal(402);
    expect(refused.text).to.match(/pro/);
    expect(idsOn(refused.text)).to.deep.equal([]);
  });

  it('adds (tested at once), tests and removes a connection on the pro plan, never showing the URL', async () => {
    const accounts = server.server.app.container.get<AccountStore>(AccountStore);
    const user = (await accounts.findUserByHandle('pat'))!;
    await accounts.setPlan(user.id, 'pro');

    const page = await web.get('/connections');
    const added = await web.post('/connections/add', { csrf: csrfOf(page), label: 'Sales <DB>', url: warehouse.url, workspace: '' });
    expect(added.status, added.text).to.equal(200);
    expect(added.text).to.contain('Added &quot;Sales &lt;DB&gt;&quot;: active.');
    expect(added.text).to.not.contain(warehouse.url);
    const [id] = idsOn(added.text);
    expect(id).to.be.a('string');
    const stored = await server.server.app.container.get(DataSource).query(`SELECT * FROM connections WHERE id = $1`, [id]);
    expect(JSON.stringify(stored)).to.not.contain(warehouse.name); // encrypted at rest

    const tested = await web.post('/connections/test', { csrf: csrfOf(added), id: id! });
    expect(tested.text).to.contain('&quot;Sales &lt;DB&gt;&quot; is active.');

    const removed = await web.post('/connections/remove', { csrf: csrfOf(tested), id: id! });
    expect(removed.text).to.contain('Removed &quot;Sales &lt;DB&gt;&quot;.');
    expect(idsOn(removed.text)).to.deep.equal([]);
    const again = await web.post('/connections/remove', { csrf: csrfOf(removed), id: id! });
    expect(again.status).to.equal(404);
  });

  it('refuses a POST without the form token', async () => {
    const res = await web.post('/connections/add', { csrf: 'forged', label: 'X', url: warehouse.url, workspace: '' });
    expect(res.status).to.equal(403);
  });

  it('does not let another user test or remove a connection it does not own', async () => {
    const page = await web.get('/connections');
    const added = await web.post('/connections/add', { csrf: csrfOf(page), label: 'Mine', url: warehouse.url, workspace: '' });
    const [id] = idsOn(added.text);
    const other = new WebClient(server.url, server.hosts.app);
    const form = await other.get('/sign-up');
    await other.post('/sign-up', { csrf: csrfOf(form), handle: 'mallory', email: 'mallory@example.com', password: 'correct horse battery' });
    const theirs = await other.get('/connections');
    const attempt = await other.post('/connections/remove', { csrf: csrfOf(theirs), id: id! });
    expect(attempt.status).to.equal(404);
    expect(idsOn((await web.get('/connections')).text)).to.deep.equal([id]);
  });
});
