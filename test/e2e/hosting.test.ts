import { createHash, randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { asPublished } from '../support/hosting-fixtures.js';
import { DataSource } from 'typeorm';
import { PublishDashboard, type PublishCommand } from '../../application/dashboards/publish-dashboard.js';
import { RenameDashboard } from '../../application/dashboards/rename-dashboard.js';
import { GetDashboard } from '../../application/dashboards/get-dashboard.js';
import { ViewTally } from '../../application/hosting/view-tally.js';
import { AccountStore } from '../../application/ports/account-store.js';
import { SESSION_COOKIE } from '../../application/ports/web-sessions.js';
import type { Principal } from '../../application/ports/token-verifier.js';
import type { Settings } from '../../application/ports/settings.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { cookiePairs, hostRequest, type RawResponse } from '../support/hosting-http.js';
import { startHostingServer, StubWebSessions, type HostingServer } from '../support/hosting-server.js';
import { testSettings } from '../support/settings.js';
import { aUser, aPrincipal, workspaceLock, aWorkspace } from '../support/mothers.js';

const sha256 = (data: Buffer | string) => createHash('sha256').update(data).digest('hex');
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), randomBytes(300)]);

describe('e2e: dashboards host (PostgreSQL)', function () {
  this.timeout(60_000);
  const settings: Settings = testSettings();
  const domain = settings.dashboardDomain;
  const appHost = new URL(settings.appUrl).host;
  let database: TestDatabase;
  let app: AppContainer;
  let server: HostingServer;
  const sessions = new StubWebSessions();
  let ada: Principal;
  let adaInAcme: Principal;
  let adaHandle: string;
  let acmeSlug: string;
  let bobSession: string;
  let adaSession: string;

  const get = (sub: string, path: string, headers: Record<string, string> = {}, method = 'GET') =>
    hostRequest(server.port, `${sub}.${domain}`, path, { method, headers: { accept: 'text/html', ...headers } });
  const publish = (p: Principal, command: PublishCommand) => app.container.get(PublishDashboard).execute(p, command);

  before(async () => {
    database = await createMigratedTestDatabase();
    app = await buildContainer({ ...settings, databaseUrl: database.url });
    server = await startHostingServer(app, settings, sessions);
    const accounts = app.container.get<AccountStore>(AccountStore);
    const tag = randomBytes(3).toString('hex');
    const a = await aUser(accounts, { handle: `ada${tag}` });
    const b = await aUser(accounts, { handle: `bob${tag}` });
    const w = await aWorkspace(accounts, { slug: `acme${tag}`, name: 'Acme' });
    await accounts.addMember(w.id, a.id, 'member');
    adaHandle = a.handle;
    acmeSlug = w.slug;
    ada = aPrincipal(a.id, { grantId: 'g1' });
    adaInAcme = aPrincipal(a.id, { grantId: 'g2', lock: workspaceLock(w) });
    adaSession = randomBytes(16).toString('hex');
    bobSession = randomBytes(16).toString('hex');
    sessions.tokens.set(adaSession, a.id);
    sessions.tokens.set(bobSession, b.id);

    await publish(ada, { path: 'sales', body: '<!doctype html><h1>Sales</h1>', name: 'Sales <Q1> & "more"' });
    await publish(ada, { path: 'sales/data.json', body: '{"rows":[1,2,3]}' });
    await publish(ada, { path: 'sales/logo.png', body: PNG.toString('base64'), encoding: 'base64' });
    await publish(ada, { path: 'diary', body: '<p>private</p>', visibility: 'private' });
    await publish(adaInAcme, { path: 'plan', body: '<p>acme plan</p>' });
  });

  after(async () => {
    await server?.close();
    await app?.close();
    await database?.drop();
  });

  afterEach(() => expect(server.errors).to.deep.equal([]));

  function expectSafetyHeaders(res: RawResponse) {
    expect(res.headers['x-content-type-options']).to.equal('nosniff');
    expect(res.headers['referrer-policy']).to.be.a('string');
  }

  it('serves index.html at /<slug> and /<slug>/ and files at /<slug>/<filename> with their content types', async () => {
    for (const path of ['/sales', '/sales/']) {
      const res = await get(adaHandle, path);
      expect(res.status, path).to.equal(200);
      // A public page published as a body, without preview tags of its own, gets them after its doctype (decision 0231).
      expect(res.text).to.match(/^<!doctype html>\n<meta property="og:type" content="website">[^\n]*<meta name="twitter:card" content="summary_large_image">\n<h1>Sales<\/h1>$/);
      expect(res.headers['content-type']).to.equal('text/html; charset=utf-8');
      expect(res.headers['cache-control']).to.equal('public, max-age=0, must-revalidate');
      expect(res.headers.etag).to.match(new RegExp(`^"${sha256('<!doctype html><h1>Sales</h1>')}-preview-[0-9a-f]{16}"$`));
      expectSafetyHeaders(res);
    }
    const json = await get(adaHandle, '/sales/data.json');
    expect([json.status, json.headers['content-type'], json.text]).to.deep.equal([200, 'application/json; charset=utf-8', '{"rows":[1,2,3]}']);
    const png = await get(adaHandle, '/sales/logo.png');
    expect(png.headers['content-type']).to.equal('image/png');
    expect(png.body.equals(PNG)).to.equal(true);
  });

  it('answers from the cached hot path with the same status, headers and bytes as the first answer', async () => {
    await publish(ada, { path: 'hot', body: '<p>hot</p>' });
    const pick = (r: RawResponse) => {
      const { date: _date, connection: _connection, 'keep-alive': _keepAlive, ...headers } = r.headers;
      return { status: r.status, headers, body: r.text };
    };
    const cold = pick(await get(adaHandle, '/hot'));
    const warm = pick(await get(adaHandle, '/hot'));
    expect(warm).to.deep.equal(cold);
    const cold304 = await get(adaHandle, '/hot', { 'if-none-match': cold.headers.etag as string });
    expect(cold304.status).to.equal(304);
    const headOnly = await get(adaHandle, '/hot', {}, 'HEAD');
    expect([headOnly.status, headOnly.headers['content-length'], headOnly.body.length]).to.deep.equal([200, String(Buffer.byteLength(cold.body)), 0]);
  });

  it('answers If-None-Match with 304 and HEAD with headers only', async () => {
    const first = await get(adaHandle, '/sales');
    const etag = first.headers.etag as string;
    for (const inm of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const res = await get(adaHandle, '/sales', { 'if-none-match': inm });
      expect(res.status, inm).to.equal(304);
      expect(res.body.length).to.equal(0);
      expect(res.headers.etag).to.equal(etag);
    }
    expect((await get(adaHandle, '/sales', { 'if-none-match': '"stale"' })).status).to.equal(200);
    const head = await get(adaHandle, '/sales/logo.png', {}, 'HEAD');
    expect(head.status).to.equal(200);
    expect(head.headers['content-length']).to.equal(String(PNG.length));
    expect(head.body.length).to.equal(0);
    const post = await get(adaHandle, '/sales', {}, 'POST');
    expect([post.status, post.headers.allow]).to.deep.equal([405, 'GET, HEAD']);
  });

  it('answers anything unknown with one styled 404 page under a strict CSP', async () => {
    const pages = await Promise.all([
      get(adaHandle, '/nothing'),
      get(adaHandle, '/sales/nothing.css'),
      get(adaHandle, '/sales/a/b'),
      get(`nobody${randomBytes(3).toString('hex')}`, '/sales'),
      get(adaHandle, '/%3Cscript%3E'),
    ]);
    for (const res of pages) {
      expect(res.status).to.equal(404);
      expect(res.headers['content-type']).to.equal('text/html; charset=utf-8');
      expect(res.text).to.contain('Dashboard not found');
      expect(res.text).to.equal(pages[0]!.text);
      expect(res.headers['content-security-policy']).to.match(/^default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+';/);
      expect(res.headers['content-security-policy']).to.contain("frame-ancestors 'none'");
      expectSafetyHeaders(res);
    }
  });

  it("lists the account's public dashboards at /, names escaped, private ones left out", async () => {
    const res = await get(adaHandle, '/');
    expect(res.status).to.equal(200);
    expect(res.text).to.contain('Sales &lt;Q1&gt; &amp; &quot;more&quot;');
    expect(res.text).to.contain(`href="http://${adaHandle}.${domain}/sales"`);
    expect(res.text).to.not.contain('diary');
    expect(res.text).to.not.contain('<Q1>');
    expect(res.headers['content-security-policy']).to.match(/^default-src 'none'/);
    const acme = await get(acmeSlug, '/');
    expect(acme.text).to.not.contain('acme plan');
    expect(acme.text).to.contain('No public dashboards here yet.');
  });

  it('answers an old slug with 301 to the canonical URL, file path kept, chains in one hop', async () => {
    await publish(ada, { path: 'report', body: '<p>r</p>' });
    await publish(ada, { path: 'report/data.csv', body: 'a,b\n1,2\n' });
    await app.container.get(RenameDashboard).execute(ada, { slug: 'report', newSlug: 'report-2' });
    await app.container.get(RenameDashboard).execute(ada, { slug: 'report-2', newSlug: 'report-3' });
    const canonical = `http://${adaHandle}.${domain}/report-3`;
    for (const [path, location] of [
      ['/report', canonical],
      ['/report-2', canonical],
      ['/report/', canonical],
      ['/report/data.csv', `${canonical}/data.csv`],
      ['/report-2/data.csv?v=1', `${canonical}/data.csv?v=1`],
    ]) {
      const res = await get(adaHandle, path!);
      expect([res.status, res.headers.location], path).to.deep.equal([301, location]);
    }
    const landed = await get(adaHandle, '/report-3/data.csv');
    expect([landed.status, landed.headers['content-type'], landed.text]).to.deep.equal([200, 'text/csv; charset=utf-8', 'a,b\n1,2\n']);
  });

  it('answers 302 to the first file of a dashboard without index.html, and to the file a page linked relatively', async () => {
    await publish(ada, { path: 'tables/b.csv', body: 'b\n1\n' });
    await publish(ada, { path: 'tables/a.csv', body: 'a\n1\n' });
    const first = await get(adaHandle, '/tables?x=1');
    expect([first.status, first.headers.location]).to.deep.equal([302, `http://${adaHandle}.${domain}/tables/a.csv`]);
    const linked = await get(adaHandle, '/data.json?v=2', { referer: `http://${adaHandle}.${domain}/sales` });
    expect([linked.status, linked.headers.location]).to.deep.equal([302, '/sales/data.json?v=2']);
    expect(linked.headers['cache-control']).to.equal('public, max-age=60');
  });

  /** The whole round trip a browser makes; returns the viewer cookie pair. */
  async function signInAs(webSession: string, sub: string, path: string): Promise<{ cookie: string; ticketUrl: URL; state: string }> {
    const first = await get(sub, path);
    expect(first.status).to.equal(302);
    const toApp = new URL(first.headers.location!);
    expect(`${toApp.protocol}//${toApp.host}`).to.equal(settings.appUrl);
    expect(toApp.pathname).to.equal('/viewer/sign-in');
    expect(toApp.searchParams.get('subdomain')).to.equal(sub);
    expect(toApp.searchParams.get('return')).to.equal(path);
    const stateCookie = (first.headers['set-cookie'] ?? []).find((c) => c.startsWith('dashpub_viewer_state='))!;
    expect(stateCookie).to.match(/; HttpOnly/).and.match(/; SameSite=Lax/).and.not.match(/Domain=/i);
    const state = cookiePairs(first.headers).dashpub_viewer_state!;

    const anonymous = await hostRequest(server.port, appHost, toApp.pathname + toApp.search);
    expect(anonymous.status).to.equal(302);
    expect(anonymous.headers.location).to.contain('/sign-in');
    expect(decodeURIComponent(anonymous.headers.location!)).to.contain(toApp.pathname + toApp.search);

    const issued = await hostRequest(server.port, appHost, toApp.pathname + toApp.search, { headers: { cookie: `${SESSION_COOKIE}=${webSession}` } });
    expect(issued.status).to.equal(302);
    const ticketUrl = new URL(issued.headers.location!);
    expect(ticketUrl.host).to.equal(`${sub}.${domain}`);
    expect(ticketUrl.pathname).to.equal('/_auth');

    const exchanged = await get(sub, ticketUrl.pathname + ticketUrl.search, { cookie: `dashpub_viewer_state=${state}` });
    expect(exchanged.status).to.equal(302);
    expect(exchanged.headers.location).to.equal(path);
    const viewerCookie = (exchanged.headers['set-cookie'] ?? []).find((c) => c.startsWith('dashpub_viewer='))!;
    expect(viewerCookie).to.match(/; Path=\//).and.match(/; HttpOnly/).and.match(/; SameSite=Lax/).and.not.match(/Domain=|Secure/i);
    return { cookie: `dashpub_viewer=${cookiePairs(exchanged.headers).dashpub_viewer}`, ticketUrl, state };
  }

  it('lets the owner into a private dashboard through a one-time ticket and a host-only cookie', async () => {
    const { cookie, ticketUrl, state } = await signInAs(adaSession, adaHandle, '/diary');
    const res = await get(adaHandle, '/diary', { cookie });
    expect([res.status, res.text, res.headers['cache-control']]).to.deep.equal([200, '<p>private</p>', 'private, no-store']);
    expect((await get(adaHandle, '/', { cookie })).text).to.not.contain('diary');

    const replay = await get(adaHandle, ticketUrl.pathname + ticketUrl.search, { cookie: `dashpub_viewer_state=${state}` });
    expect(replay.status).to.equal(400);
    expect(replay.text).to.contain('This sign-in link has expired');

    const token = cookie.split('=')[1]!;
    const dataSource = app.container.get(DataSource);
    const stored: Array<{ token_hash: string }> = await dataSource.query('SELECT token_hash FROM hosting_viewer_sessions');
    expect(stored.map((r) => r.token_hash)).to.include(sha256(token)).and.not.include(token);
  });

  it('starts the viewer sign-in only for a top-level navigation, and keeps private answers to their own origin', async () => {
    const subresources: Array<Record<string, string>> = [
      { 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'script' },
      { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'iframe' },
      { 'sec-fetch-mode': 'cors', 'sec-fetch-dest': 'empty', accept: 'text/html' },
      { accept: '*/*' },
      {},
    ];
    for (const headers of subresources) {
      const res = await hostRequest(server.port, `${adaHandle}.${domain}`, '/diary', { headers });
      expect([res.status, res.headers.location, res.headers['set-cookie']], JSON.stringify(headers)).to.deep.equal([404, undefined, undefined]);
      expect(res.headers['cross-origin-resource-policy']).to.equal('same-origin');
    }
    const navigation = await hostRequest(server.port, `${adaHandle}.${domain}`, '/diary', { headers: { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' } });
    expect(navigation.status).to.equal(302);
    expect(navigation.headers['cross-origin-resource-policy']).to.equal('same-origin');
    const { cookie } = await signInAs(adaSession, adaHandle, '/diary');
    const res = await get(adaHandle, '/diary', { cookie });
    expect(res.status).to.equal(200);
    expect(res.headers['cross-origin-resource-policy']).to.equal('same-origin');
    expect(res.headers['content-security-policy']).to.equal("frame-ancestors 'self'");
    expect((await get(adaHandle, '/sales')).headers['cross-origin-resource-policy']).to.equal(undefined);
  });

  it('refuses a ticket without the state cookie that started it, or on another subdomain', async () => {
    const first = await get(adaHandle, '/diary');
    const toApp = new URL(first.headers.location!);
    const state = cookiePairs(first.headers).dashpub_viewer_state!;
    const issue = async () => {
      const issued = await hostRequest(server.port, appHost, toApp.pathname + toApp.search, { headers: { cookie: `${SESSION_COOKIE}=${adaSession}` } });
      return new URL(issued.headers.location!);
    };
    const noState = await issue();
    expect((await get(adaHandle, noState.pathname + noState.search)).status).to.equal(400);
    const otherState = await issue();
    expect((await get(adaHandle, otherState.pathname + otherState.search, { cookie: 'dashpub_viewer_state=' + 'x'.repeat(43) })).status).to.equal(400);
    const elsewhere = await issue();
    expect((await get(acmeSlug, elsewhere.pathname + elsewhere.search, { cookie: `dashpub_viewer_state=${state}` })).status).to.equal(400);
  });

  it('refuses to issue a ticket for a malformed subdomain or state, and never for an anonymous visitor', async () => {
    const withSession = { cookie: `${SESSION_COOKIE}=${adaSession}` };
    const bad = await hostRequest(server.port, appHost, '/viewer/sign-in?subdomain=Evil.example&return=%2F&state=' + 'a'.repeat(43), { headers: withSession });
    expect(bad.status).to.equal(400);
    expect(bad.headers.location).to.equal(undefined);
    const noState = await hostRequest(server.port, appHost, `/viewer/sign-in?subdomain=${adaHandle}&return=%2F`, { headers: withSession });
    expect(noState.status).to.equal(400);
    const unknownSession = await hostRequest(server.port, appHost, `/viewer/sign-in?subdomain=${adaHandle}&return=%2F&state=${'a'.repeat(43)}`, {
      headers: { cookie: `${SESSION_COOKIE}=not-a-session` },
    });
    expect(unknownSession.status).to.equal(302);
    expect(unknownSession.headers.location).to.not.contain('/_auth');
  });

  it('gives a signed-in non-member the same 404 as a missing dashboard', async () => {
    const { cookie } = await signInAs(bobSession, adaHandle, '/diary');
    const hidden = await get(adaHandle, '/diary', { cookie });
    const missing = await get(adaHandle, '/no-such-dashboard', { cookie });
    expect(hidden.status).to.equal(404);
    expect(hidden.text).to.equal(missing.text);
    expect(hidden.headers['content-type']).to.equal(missing.headers['content-type']);

    const member = await signInAs(adaSession, acmeSlug, '/plan');
    expect((await get(acmeSlug, '/plan', { cookie: member.cookie })).text).to.equal('<p>acme plan</p>');
    const outsider = await signInAs(bobSession, acmeSlug, '/plan');
    expect((await get(acmeSlug, '/plan', { cookie: outsider.cookie })).status).to.equal(404);
    // A viewer cookie of one subdomain means nothing on another.
    expect((await get(adaHandle, '/diary', { cookie: member.cookie })).status).to.equal(302);
  });

  it('counts page views per dashboard and day, written in a batch', async () => {
    await publish(ada, { path: 'counted', body: '<p>c</p>' });
    await publish(ada, { path: 'counted/app.js', body: 'console.log(1)' });
    const dayBefore = new Date().toISOString().slice(0, 10);
    const etag = (await get(adaHandle, '/counted')).headers.etag as string;
    await get(adaHandle, '/counted/');
    await get(adaHandle, '/counted', { 'if-none-match': etag });
    await get(adaHandle, '/counted/app.js');
    await get(adaHandle, '/counted', {}, 'HEAD');
    await app.container.get(ViewTally).flush();
    const dataSource = app.container.get(DataSource);
    const rows: Array<{ views: string; day: string }> = await dataSource.query(
      `SELECT v.views, to_char(v.day, 'YYYY-MM-DD') AS day FROM dashboard_views_daily v JOIN dashboards d ON d.id = v.dashboard_id WHERE d.slug = 'counted'`,
    );
    // Read at UTC midnight, the views fall on either side of it: the days are the test's first and last.
    const days = new Set([dayBefore, new Date().toISOString().slice(0, 10)]);
    expect(rows.reduce((sum, row) => sum + Number(row.views), 0)).to.equal(3);
    for (const row of rows) expect(days).to.include(row.day);
  });

  it('serves the same bytes get_dashboard returns', async () => {
    const viaTool = await app.container.get(GetDashboard).execute(ada, { slug: 'sales', includeBody: true });
    const served = await get(adaHandle, '/sales');
    // Besides the preview line the host adds to a public body page without its own (decision 0231).
    expect(viaTool.body?.content).to.equal(asPublished(served.text));
    const png = await app.container.get(GetDashboard).execute(ada, { slug: 'sales', includeBody: true, filename: 'logo.png' });
    expect(Buffer.from(png.body!.content, 'base64').equals((await get(adaHandle, '/sales/logo.png')).body)).to.equal(true);
  });
});

describe('e2e: dashboards host under https', function () {
  this.timeout(30_000);
  const settings: Settings = testSettings({ dashboardScheme: 'https' });
  let app: AppContainer;
  let server: HostingServer;
  const sessions = new StubWebSessions();

  before(async () => {
    app = await buildContainer(settings, { storage: 'memory', hosting: { metadataTtlMs: 0 } });
    server = await startHostingServer(app, settings, sessions);
    const accounts = app.container.get<AccountStore>(AccountStore);
    const user = await aUser(accounts, { handle: 'eve' });
    sessions.tokens.set('web-eve', user.id);
    const eve: Principal = aPrincipal(user.id, { grantId: 'g' });
    await app.container.get(PublishDashboard).execute(eve, { path: 'notes', body: '<p>n</p>', visibility: 'private' });
  });
  after(async () => {
    await server?.close();
    await app?.close();
  });

  it('marks the viewer cookies Secure with the __Host- prefix, so a sibling subdomain cannot plant them', async () => {
    const host = `eve.${settings.dashboardDomain}`;
    const first = await hostRequest(server.port, host, '/notes', { headers: { accept: 'text/html' } });
    const state = (first.headers['set-cookie'] ?? [])[0]!;
    expect(state).to.match(/^__Host-dashpub_viewer_state=[A-Za-z0-9_-]{43}; Path=\/; Max-Age=600; HttpOnly; SameSite=Lax; Secure$/);
    const toApp = new URL(first.headers.location!);
    const issued = await hostRequest(server.port, new URL(settings.appUrl).host, toApp.pathname + toApp.search, { headers: { cookie: `${SESSION_COOKIE}=web-eve` } });
    const ticketUrl = new URL(issued.headers.location!);
    expect(ticketUrl.protocol).to.equal('https:');
    const exchanged = await hostRequest(server.port, host, ticketUrl.pathname + ticketUrl.search, {
      headers: { cookie: state.split(';')[0]! },
    });
    const viewer = (exchanged.headers['set-cookie'] ?? []).find((c) => c.startsWith('__Host-dashpub_viewer='))!;
    expect(viewer).to.match(/; Path=\/; Max-Age=\d+; HttpOnly; SameSite=Lax; Secure$/);
    const res = await hostRequest(server.port, host, '/notes', { headers: { cookie: viewer.split(';')[0]! } });
    expect([res.status, res.text]).to.deep.equal([200, '<p>n</p>']);
  });
});
