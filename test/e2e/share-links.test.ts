import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { PublishDashboard, type PublishCommand } from '../../application/dashboards/publish-dashboard.js';
import pg from 'pg';
import { DashboardStore } from '../../application/ports/dashboard-store.js';
import type { OwnerRef } from '../../domain/scope.js';
import { ServeDashboard } from '../../application/hosting/serve-dashboard.js';
import { ViewTally } from '../../application/hosting/view-tally.js';
import { AccountStore } from '../../application/ports/account-store.js';
import type { Principal } from '../../application/ports/token-verifier.js';
import type { Settings } from '../../application/ports/settings.js';
import { ManageShareLinks } from '../../application/sharing/manage-share-links.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { ManualClock } from '../support/hosting-fixtures.js';
import { cookiePairs, hostRequest, type RawResponse } from '../support/hosting-http.js';
import { startHostingServer, StubWebSessions, type HostingServer } from '../support/hosting-server.js';
import { testSettings } from '../support/settings.js';
import { aPrincipal, aUser, aWorkspace, workspaceLock } from '../support/mothers.js';

const OPERATOR = { kind: 'operator' } as const;
const DAY_MS = 86_400_000;

/** Share links on the dashboards host, over HTTP against PostgreSQL, with a hand-moved clock. */
describe('e2e: share links on the dashboards host (PostgreSQL)', function () {
  this.timeout(60_000);
  const settings: Settings = testSettings();
  const clock = new ManualClock(Date.now());
  let database: TestDatabase;
  let app: AppContainer;
  let server: HostingServer;
  let links: ManageShareLinks;
  let acme: string;
  let ada: string;
  let inAcme: Principal;
  let asAda: Principal;

  const get = (sub: string, path: string, cookies: Record<string, string> = {}, extra: { method?: string; body?: string } = {}) =>
    hostRequest(server.port, `${sub}.${settings.dashboardDomain}`, path, {
      method: extra.method ?? 'GET',
      body: extra.body,
      headers: {
        accept: 'text/html',
        cookie: Object.entries(cookies).map(([k, v]) => `${k}=${v}`).join('; '),
        ...(extra.body === undefined ? {} : { 'content-type': 'application/x-www-form-urlencoded' }),
      },
    });
  const publish = (p: Principal, command: PublishCommand) => app.container.get(PublishDashboard).execute(p, command);
  const csrfIn = (res: RawResponse) => /name="csrf" value="([^"]+)"/.exec(res.text)![1]!;

  before(async () => {
    database = await createMigratedTestDatabase();
    app = await buildContainer({ ...settings, databaseUrl: database.url }, { clock, refreshWorkers: false });
    server = await startHostingServer(app, settings, new StubWebSessions());
    links = app.container.get(ManageShareLinks);
    const accounts = app.container.get<AccountStore>(AccountStore);
    const tag = randomBytes(3).toString('hex');
    const user = await aUser(accounts, { handle: `ada${tag}` });
    const workspace = await aWorkspace(accounts, { slug: `acme${tag}` });
    await accounts.addMember(workspace.id, user.id, 'admin');
    acme = workspace.slug;
    ada = user.handle;
    inAcme = aPrincipal(user.id, { lock: workspaceLock(workspace) });
    asAda = aPrincipal(user.id);
    await publish(inAcme, { path: 'plan', body: '<!doctype html><title>Plan</title><p>acme plan v1</p>' });
    await publish(inAcme, { path: 'plan/data.json', body: '{"v":1}' });
    await publish(inAcme, { path: 'secret', body: '<p>other private dashboard</p>' });
    await publish(asAda, { path: 'sales', body: '<p>sales v1</p>' });
  });

  after(async () => {
    await server?.close();
    await app?.close();
    await database?.drop();
  });

  afterEach(() => expect(server.errors).to.deep.equal([]));

  /** Opens a link without a password: the session cookie, and where the browser is sent. */
  async function openLink(sub: string, token: string): Promise<{ res: RawResponse; cookies: Record<string, string> }> {
    const res = await get(sub, `/_share/${token}`);
    return { res, cookies: cookiePairs(res.headers) };
  }

  it('a password link: the password page without the token in the address, refusals, the limit, then the dashboard and its files only', async () => {
    const created = await links.create(OPERATOR, { workspace: acme }, 'plan', { label: 'board', password: 'correct horse', expiresInMs: 7 * DAY_MS });
    const token = created.token;
    const opened = await get(acme, `/_share/${token}`);
    expect(opened.status).to.equal(303);
    expect(opened.headers.location).to.equal('/_share');
    expect(opened.headers['referrer-policy']).to.equal('no-referrer');
    const pending = cookiePairs(opened.headers);
    const form = await get(acme, '/_share', pending);
    expect(form.status).to.equal(200);
    expect(form.text).to.include('type="password"');
    expect(form.text).to.not.include(token);
    const csrf = csrfIn(form);
    const post = (password: string, token = csrf) => get(acme, '/_share', pending, { method: 'POST', body: new URLSearchParams({ csrf: token, password }).toString() });

    expect((await post('correct horse', 'forged')).status).to.equal(403);
    for (let i = 0; i < 9; i++) expect((await post('wrong password')).status).to.equal(401);
    const right = await post('correct horse');
    expect(right.status).to.equal(303);
    expect(right.headers.location).to.equal('/plan');
    const session = cookiePairs(right.headers);
    const cookie = { [`dashpub_share_plan`]: session['dashpub_share_plan']! };
    expect(cookie.dashpub_share_plan).to.match(/^[A-Za-z0-9_-]{43}$/);

    // Ten tries a minute per link and address (the forged form did not count): the next is refused even when right.
    const limited = await post('correct horse');
    expect(limited.status).to.equal(429);
    expect(limited.text).to.include('Too many password attempts for this link. Wait about 60 seconds and try again.');
    clock.advance(61_000);
    expect((await post('wrong again')).status).to.equal(401);

    const page = await get(acme, '/plan', cookie);
    expect(page.status).to.equal(200);
    expect(page.text).to.include('acme plan v1');
    expect(page.headers['cache-control']).to.equal('private, no-store');
    expect((await get(acme, '/plan/data.json', cookie)).text).to.equal('{"v":1}');
    // Nothing else: the workspace's other private dashboard still asks for a sign-in.
    const other = await get(acme, '/secret', cookie);
    expect(other.status).to.equal(302);
    expect(other.text).to.not.include('other private dashboard');
    // Without the cookie, the dashboard itself is private as before.
    expect((await get(acme, '/plan')).status).to.equal(302);
  });

  it('a wrong or unknown token, another host’s link and a malformed path all get the same 404 page', async () => {
    const created = await links.create(OPERATOR, { owner: ada }, 'sales', {});
    const answers = await Promise.all([
      get(acme, `/_share/${created.token}`),
      get(ada, `/_share/${'x'.repeat(43)}`),
      get(ada, `/_share/${created.token.slice(0, -1)}${created.token.endsWith('A') ? 'B' : 'A'}`),
      get(ada, '/_share/'),
      get(ada, '/_share'),
    ]);
    for (const res of answers) {
      expect(res.status).to.equal(404);
      expect(res.text).to.include('This link does not work');
      expect(res.headers['set-cookie']).to.equal(undefined);
    }
  });

  async function currentVersionOf(ownerHandle: string, slug: string): Promise<string> {
    const found = await app.container.get<DashboardStore>(DashboardStore).findDashboard(await ownerRef(ownerHandle), slug);
    return found!.currentVersionId;
  }

  async function ownerRef(name: string): Promise<OwnerRef> {
    const owner = await app.container.get<AccountStore>(AccountStore).findSubdomainOwner(name);
    return owner!.kind === 'user' ? { kind: 'user', id: owner!.user.id } : { kind: 'workspace', id: owner!.workspace.id };
  }

  it('a pinned link keeps serving its version after a republish; an unpinned one follows', async () => {
    await publish(asAda, { path: 'report', body: '<p>report v1</p>' });
    const v1 = await currentVersionOf(ada, 'report');
    const pinned = await links.create(OPERATOR, { owner: ada }, 'report', { pinnedVersionId: v1 });
    const follows = await links.create(OPERATOR, { owner: ada }, 'report', {});
    const pinnedCookie = (await openLink(ada, pinned.token)).cookies;
    const followCookie = (await openLink(ada, follows.token)).cookies;
    await publish(asAda, { path: 'report', body: '<p>report v2</p>' });
    expect((await get(ada, '/report', pinnedCookie)).text).to.equal('<p>report v1</p>');
    expect((await get(ada, '/report', followCookie)).text).to.equal('<p>report v2</p>');
    // The public answer also carries the preview tags the host adds to a body page (decision 0231); the shared ones do not.
    expect((await get(ada, '/report')).text).to.match(/^<meta property="og:type"[^\n]*\n<p>report v2<\/p>$/);
  });

  it('pausing, resuming, revoking and expiry take effect at the next request, for browsers that opened the link already', async () => {
    const created = await links.create(OPERATOR, { workspace: acme }, 'plan', { expiresInMs: DAY_MS });
    const { res, cookies } = await openLink(acme, created.token);
    expect(res.status).to.equal(303);
    expect(res.headers.location).to.equal('/plan');
    expect((await get(acme, '/plan', cookies)).status).to.equal(200);
    await links.pause(OPERATOR, created.link.id);
    expect((await get(acme, '/plan', cookies)).status).to.equal(302);
    expect((await get(acme, `/_share/${created.token}`)).status).to.equal(404);
    await links.resume(OPERATOR, created.link.id);
    expect((await get(acme, '/plan', cookies)).status).to.equal(200);
    clock.advance(DAY_MS);
    expect((await get(acme, '/plan', cookies)).status).to.equal(302);
    expect((await get(acme, `/_share/${created.token}`)).status).to.equal(404);
    const listed = await links.list(OPERATOR, { workspace: acme }, 'plan');
    expect(listed.find((l) => l.link.id === created.link.id)?.status).to.equal('expired');

    const other = await links.create(OPERATOR, { workspace: acme }, 'plan', {});
    const opened = (await openLink(acme, other.token)).cookies;
    expect((await get(acme, '/plan', opened)).status).to.equal(200);
    await links.revoke(OPERATOR, other.link.id);
    expect((await get(acme, '/plan', opened)).status).to.equal(302);
    expect((await get(acme, `/_share/${other.token}`)).status).to.equal(404);
  });

  it('counts views through a link in the dashboard’s daily views and per link, and stores tokens and passwords only hashed', async () => {
    const created = await links.create(OPERATOR, { workspace: acme }, 'plan', { password: 'pass phrase 1' });
    const pending = (await openLink(acme, created.token)).cookies;
    const csrf = csrfIn(await get(acme, '/_share', pending));
    const opened = await get(acme, '/_share', pending, { method: 'POST', body: new URLSearchParams({ csrf, password: 'pass phrase 1' }).toString() });
    const cookies = cookiePairs(opened.headers);
    await get(acme, '/plan', cookies);
    await get(acme, '/plan', cookies);
    await get(acme, '/plan/data.json', cookies);
    await app.container.get(ViewTally).flush();
    const listed = (await links.list(OPERATOR, { workspace: acme }, 'plan')).find((l) => l.link.id === created.link.id)!;
    expect(listed.link.views).to.equal(2);
    expect(listed.link.lastUsedAt?.getTime()).to.equal(clock.now().getTime());
    const rows: Array<{ token_hash: string; password_hash: string }> = await sql(`SELECT token_hash, password_hash FROM share_links WHERE id = '${created.link.id}'`);
    expect(rows[0]!.token_hash).to.match(/^[0-9a-f]{64}$/).and.not.include(created.token);
    expect(rows[0]!.password_hash).to.not.include('pass phrase 1');
    const sessions: Array<{ token_hash: string }> = await sql(`SELECT token_hash FROM share_sessions WHERE link_id = '${created.link.id}'`);
    expect(sessions.map((r) => r.token_hash)).to.not.include(Object.values(cookies).find((v) => v.length === 43));
  });

  it('the hot path answers a remembered share session from memory, and forgets it when the link is paused', async () => {
    const created = await links.create(OPERATOR, { workspace: acme }, 'plan', {});
    const { cookies } = await openLink(acme, created.token);
    const serve = app.container.get(ServeDashboard);
    const shareCookie = (slug: string) => cookies[`dashpub_share_${slug}`] ?? null;
    expect((await get(acme, '/plan', cookies)).status).to.equal(200);
    const hot = serve.peek(acme, '/plan', shareCookie);
    expect(hot?.shareLinkId).to.equal(created.link.id);
    expect(hot?.visibility).to.equal('private');
    expect(serve.peek(acme, '/plan')).to.equal(undefined);
    expect(serve.peek(acme, '/secret', shareCookie)).to.equal(undefined);
    await links.pause(OPERATOR, created.link.id);
    expect(serve.peek(acme, '/plan', shareCookie)).to.equal(undefined);
    const refused = await get(acme, '/plan', cookies);
    expect(refused.status).to.equal(302);
    expect(serve.peek(acme, '/plan', shareCookie)).to.equal(undefined);
  });

  async function sql<T>(text: string): Promise<T[]> {
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      return (await client.query(text)).rows as T[];
    } finally {
      await client.end();
    }
  }
});
