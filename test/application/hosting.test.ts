import { expect } from 'chai';
import { MemoryAccountStore } from '../../adapters/memory/memory-account-store.js';
import { MemoryDashboardStore } from '../../adapters/memory/memory-dashboard-store.js';
import { MemoryViewCounter } from '../../adapters/memory/memory-view-counter.js';
import { MemoryViewerTickets } from '../../adapters/memory/memory-viewer-tickets.js';
import { HostingCatalog } from '../../application/hosting/hosting-catalog.js';
import { DEFAULT_HOSTING_OPTIONS, type HostingOptions } from '../../application/hosting/hosting-options.js';
import { ServeDashboard, type HostingOutcome, type HostingRequest } from '../../application/hosting/serve-dashboard.js';
import { ServedFiles } from '../../application/hosting/served-files.js';
import { hasOwnPreviewTags, withPreviewTags } from '../../application/hosting/page-variants.js';
import { LiveFiles } from '../../application/refresh/live-files.js';
import { MemoryRefreshStateStore } from '../../adapters/memory/memory-refresh-state-store.js';
import { MemoryShareLinkStore } from '../../adapters/memory/memory-share-link-store.js';
import type { LinkViews, ShareLinkStore } from '../../application/ports/share-link-store.js';
import { ShareAccess } from '../../application/sharing/share-access.js';
import { NodeSecretTokens } from '../../adapters/crypto/node-secret-tokens.js';
import { ScryptPasswordHasher } from '../../adapters/crypto/scrypt-password-hasher.js';
import { MemoryRateLimiter } from '../../adapters/memory/memory-rate-limiter.js';
import { ViewTally } from '../../application/hosting/view-tally.js';
import { safeReturnPath, ViewerAccess } from '../../application/hosting/viewer-access.js';
import type { DailyViews, ViewCounter } from '../../application/ports/view-counter.js';
import type { OwnerRef } from '../../domain/scope.js';
import { ADDED_PREVIEW, asPublished, ManualClock, renameDashboard, seedDashboard, sha256 } from '../support/hosting-fixtures.js';
import { aUser, aWorkspace } from '../support/mothers.js';
import type { ParamPages } from '../../application/hosting/param-pages.js';

/** Pages without parameters: every URL answers the stored page. */
const NO_PARAM_PAGES = { page: async () => null } as unknown as ParamPages;
const ADDRESSES = { pageUrl: (subdomain: string, slug: string) => `https://${subdomain}.example.test/${slug}` };

describe('application: hosting (memory)', () => {
  let clock: ManualClock;
  let accounts: MemoryAccountStore;
  let store: MemoryDashboardStore;
  let viewers: ViewerAccess;
  let serve: ServeDashboard;
  let getFileCalls: number;
  let ada: OwnerRef;
  let adaId: string;
  let bobId: string;
  let acme: OwnerRef;
  let refreshState: MemoryRefreshStateStore;

  const options: HostingOptions = { ...DEFAULT_HOSTING_OPTIONS, metadataTtlMs: 1_000 };
  const ownText = (body: Buffer) => asPublished(body.toString('utf8'));

  beforeEach(async () => {
    clock = new ManualClock();
    accounts = new MemoryAccountStore();
    store = new MemoryDashboardStore();
    getFileCalls = 0;
    const getFile = store.getFile.bind(store);
    store.getFile = async (hash: string) => {
      getFileCalls += 1;
      return getFile(hash);
    };
    const a = await aUser(accounts, { handle: 'ada' });
    const b = await aUser(accounts, { handle: 'bob' });
    const w = await aWorkspace(accounts, { slug: 'acme', name: 'Acme' });
    await accounts.addMember(w.id, a.id, 'member');
    adaId = a.id;
    bobId = b.id;
    ada = { kind: 'user', id: a.id };
    acme = { kind: 'workspace', id: w.id };
    viewers = new ViewerAccess(new MemoryViewerTickets(), clock, options);
    refreshState = new MemoryRefreshStateStore();
    const catalog = new HostingCatalog(store, accounts, new ServedFiles(store, new LiveFiles(refreshState)), clock, options);
    const shares = new ShareAccess(new MemoryShareLinkStore(), store, accounts, new NodeSecretTokens(), new ScryptPasswordHasher(), new MemoryRateLimiter(clock), clock);
    serve = new ServeDashboard(catalog, viewers, shares, NO_PARAM_PAGES, ADDRESSES);
  });

  async function sessionFor(userId: string, subdomain: string): Promise<string> {
    const state = viewers.newState();
    const ticket = await viewers.issueTicket(userId, subdomain, state);
    const session = await viewers.exchange(subdomain, ticket, state);
    if (!session) throw new Error('exchange failed');
    return session.token;
  }

  const get = (subdomain: string, path: string, extra: Partial<HostingRequest> = {}): Promise<HostingOutcome> =>
    serve.execute({ subdomain, path, query: '', viewerToken: () => null, refererPath: () => null, ...extra });

  function expectFile(outcome: HostingOutcome): Extract<HostingOutcome, { kind: 'file' }> {
    expect(outcome.kind, JSON.stringify(outcome)).to.equal('file');
    return outcome as Extract<HostingOutcome, { kind: 'file' }>;
  }

  it('serves index.html at /<slug> and /<slug>/, and each file with its content type and hash ETag', async () => {
    const html = '<h1>Sales</h1>';
    const d = await seedDashboard(store, ada, { slug: 'sales', files: { 'index.html': html, 'data.json': '{"a":1}' } });
    for (const path of ['/sales', '/sales/', '/sales/index.html']) {
      const file = expectFile(await get('ada', path));
      expect(file.body.toString('utf8')).to.match(ADDED_PREVIEW);
      expect(ownText(file.body)).to.equal(html);
      expect(file.contentType).to.equal('text/html; charset=utf-8');
      expect(file.etag).to.match(new RegExp(`^"${sha256(html)}-preview-[0-9a-f]{16}"$`));
      expect(file.page).to.equal(true);
      expect(file.dashboardId).to.equal(d.id);
    }
    const data = expectFile(await get('ada', '/sales/data.json'));
    expect(data.body.toString('utf8')).to.equal('{"a":1}');
    expect(data.contentType).to.equal('application/json; charset=utf-8');
    expect(data.page).to.equal(false);
  });

  it('serves the live render of a refreshed dashboard while it matches the current version', async () => {
    const d = await seedDashboard(store, ada, { slug: 'sales', files: { 'index.html': 'published' } });
    const refreshed = Buffer.from('refreshed', 'utf8');
    await store.transaction(ada, (tx) => tx.putFile(sha256(refreshed), refreshed));
    const files = { 'index.html': { sha256: sha256(refreshed), size: refreshed.byteLength, contentType: 'text/html; charset=utf-8' } };
    await refreshState.setLiveRender({ dashboardId: d.id, versionId: d.currentVersionId, files, renderedAt: new Date() });
    expect(ownText(expectFile(await get('ada', '/sales')).body)).to.equal('refreshed');

    // A render made from an older version is stale: the current version's own files show.
    await refreshState.setLiveRender({ dashboardId: d.id, versionId: '00000000-0000-4000-8000-000000000000', files, renderedAt: new Date() });
    clock.advance(options.metadataTtlMs + 1);
    await get('ada', '/sales'); // the first request after expiry reloads in the background
    await new Promise((resolve) => setImmediate(resolve));
    expect(ownText(expectFile(await get('ada', '/sales')).body)).to.equal('published');
  });

  it('answers not_found for unknown accounts, slugs, files and malformed paths', async () => {
    await seedDashboard(store, ada, { slug: 'sales', files: { 'index.html': 'x' } });
    for (const [sub, path] of [
      ['nobody', '/sales'],
      ['ada', '/missing'],
      ['ada', '/sales/missing.css'],
      ['ada', '/sales/a/b'],
      ['ada', '/Sales'],
      ['ada', '/sales/%2e%2e'],
      ['ada', '/sales/..'],
      ['ada', '//sales'],
      ['nobody', '/'],
    ]) {
      expect((await get(sub!, path!)).kind, `${sub}${path}`).to.equal('not_found');
    }
  });

  it('lists only the public dashboards of the account at /', async () => {
    await seedDashboard(store, ada, { slug: 'zeta', name: 'Zeta <b>', files: { 'index.html': 'z' } });
    await seedDashboard(store, ada, { slug: 'alpha', name: 'Alpha', files: { 'index.html': 'a' } });
    await seedDashboard(store, ada, { slug: 'secret', visibility: 'private', files: { 'index.html': 's' } });
    await seedDashboard(store, acme, { slug: 'other', files: { 'index.html': 'o' } });
    const outcome = await get('ada', '/');
    expect(outcome.kind).to.equal('listing');
    const listing = outcome as Extract<HostingOutcome, { kind: 'listing' }>;
    expect(listing.subdomain).to.equal('ada');
    expect(listing.dashboards.map((d) => [d.slug, d.name])).to.deep.equal([
      ['alpha', 'Alpha'],
      ['zeta', 'Zeta <b>'],
    ]);
  });

  it('leads an alias to the canonical dashboard, keeping the file name, in one hop', async () => {
    const d = await seedDashboard(store, ada, { slug: 'one', files: { 'index.html': 'x', 'app.css': 'y' } });
    await renameDashboard(store, d, 'one', 'two');
    await renameDashboard(store, d, 'two', 'three');
    clock.advance(2_000);
    expect(await get('ada', '/one')).to.deep.equal({ kind: 'moved', subdomain: 'ada', slug: 'three', filename: '', visibility: 'public' });
    expect(await get('ada', '/two/')).to.deep.include({ kind: 'moved', slug: 'three', filename: '' });
    expect(await get('ada', '/one/app.css', { query: 'v=2' })).to.deep.include({ kind: 'moved', slug: 'three', filename: 'app.css' });
    expectFile(await get('ada', '/three/app.css'));
  });

  it('sends an anonymous viewer of a private dashboard to sign in, with the path to come back to', async () => {
    await seedDashboard(store, ada, { slug: 'secret', visibility: 'private', files: { 'index.html': 's' } });
    expect(await get('ada', '/secret/index.html', { query: 'x=1' })).to.deep.equal({ kind: 'sign_in', returnPath: '/secret/index.html?x=1' });
  });

  it('shows a private personal dashboard to its owner only; others get the same answer as a missing one', async () => {
    await seedDashboard(store, ada, { slug: 'secret', visibility: 'private', files: { 'index.html': 'mine' } });
    const adaToken = await sessionFor(adaId, 'ada');
    const bobToken = await sessionFor(bobId, 'ada');
    const file = expectFile(await get('ada', '/secret', { viewerToken: () => adaToken }));
    expect(file.body.toString()).to.equal('mine');
    expect(file.visibility).to.equal('private');
    expect(await get('ada', '/secret', { viewerToken: () => bobToken })).to.deep.equal(await get('ada', '/nothing-here', { viewerToken: () => bobToken }));
    expect((await get('ada', '/secret', { viewerToken: () => 'forged-token-forged-token-forged-token-abcd' })).kind).to.equal('sign_in');
  });

  it('shows a private workspace dashboard to members only, and hides its alias from non-members', async () => {
    const d = await seedDashboard(store, acme, { slug: 'plan', visibility: 'private', files: { 'index.html': 'plan' } });
    await renameDashboard(store, d, 'plan', 'roadmap');
    const member = await sessionFor(adaId, 'acme');
    const outsider = await sessionFor(bobId, 'acme');
    expectFile(await get('acme', '/roadmap', { viewerToken: () => member }));
    expect((await get('acme', '/roadmap', { viewerToken: () => outsider })).kind).to.equal('not_found');
    expect((await get('acme', '/plan', { viewerToken: () => outsider })).kind).to.equal('not_found');
    expect(await get('acme', '/plan', { viewerToken: () => member })).to.deep.include({ kind: 'moved', slug: 'roadmap', visibility: 'private' });
    expect((await get('acme', '/plan')).kind).to.equal('sign_in');
  });

  it('does not accept a viewer session of one subdomain on another', async () => {
    await seedDashboard(store, ada, { slug: 'secret', visibility: 'private', files: { 'index.html': 's' } });
    const onAcme = await sessionFor(adaId, 'acme');
    expect((await get('ada', '/secret', { viewerToken: () => onAcme })).kind).to.equal('sign_in');
  });

  it('opens the first file of a dashboard that has no index.html', async () => {
    await seedDashboard(store, ada, { slug: 'report', files: { 'b.csv': 'b', 'a.csv': 'a' } });
    expect(await get('ada', '/report')).to.deep.equal({ kind: 'first_file', subdomain: 'ada', slug: 'report', filename: 'a.csv', visibility: 'public' });
    expect((await get('ada', '/report/index.html')).kind).to.equal('not_found');
  });

  it('gives a public page published as a body preview tags after its <head>, its card as the image, the same from peek', async () => {
    const html = '<!doctype html>\n<html lang="en"><head><title>Sales</title></head><body><h1>Sales</h1></body></html>';
    const d = await seedDashboard(store, ada, { slug: 'sales', files: { 'index.html': html } });
    const file = expectFile(await get('ada', '/sales'));
    const line = [
      '<meta property="og:type" content="website">',
      `<meta property="og:title" content="${d.name}">`,
      '<meta property="og:description" content="Dashboard by ada">',
      '<meta property="og:url" content="https://ada.example.test/sales">',
      '<meta property="og:image" content="https://ada.example.test/_image/sales.png">',
      '<meta property="og:image:width" content="1200">',
      '<meta property="og:image:height" content="630">',
      `<meta property="og:image:alt" content="${d.name}">`,
      '<meta name="twitter:card" content="summary_large_image">',
    ].join('');
    expect(file.body.toString('utf8')).to.equal(html.replace('<head>', `<head>\n${line}\n`));
    const peeked = serve.peek('ada', '/sales')!;
    expect([peeked.body.equals(file.body), peeked.etag]).to.deep.equal([true, file.etag]);
    // A new name is new tags under a new ETag.
    await store.transaction(ada, (tx) => tx.updateDashboard(d.id, { name: 'Sales "2026" <b>' }));
    clock.advance(2_000);
    const renamed = expectFile(await get('ada', '/sales'));
    expect(renamed.body.toString('utf8')).to.contain('<meta property="og:title" content="Sales &quot;2026&quot; &lt;b&gt;">');
    expect(renamed.etag).to.not.equal(file.etag);
  });

  it('places the preview line after <head>, else <html>, else the doctype, else the start, and never into UTF-16', () => {
    const cases: Array<[string, string]> = [
      ['<!DOCTYPE html><HTML><Head lang=en><title>t</title></Head><body><header>h</header></body>', '<!DOCTYPE html><HTML><Head lang=en>\nL\n<title>t</title></Head><body><header>h</header></body>'],
      ['<html lang="en"><header>h</header></html>', '<html lang="en">\nL\n<header>h</header></html>'],
      ['<!doctype html><p>p</p>', '<!doctype html>\nL\n<p>p</p>'],
      ['<p>p</p>', 'L\n<p>p</p>'],
      ['\ufeff<p>p</p>', '\ufeff\nL\n<p>p</p>'],
    ];
    for (const [page, expected] of cases) {
      const placed = withPreviewTags(Buffer.from(page), 'L')!.toString('utf8');
      expect(placed, page).to.equal(expected);
      expect(placed.replace(/\n?L\n/, ''), page).to.equal(page);
    }
    expect(withPreviewTags(Buffer.from('\ufeff<p>p</p>', 'utf16le'), 'L')).to.equal(null);
    expect(hasOwnPreviewTags(Buffer.from('<head></head><body><meta property="og:title" content="in the body"></body>'))).to.equal(false);
    expect(hasOwnPreviewTags(Buffer.from('<p>no head</p><meta property=og:title content=x>'))).to.equal(true);
  });

  it('serves a body page with preview tags of its own, and a private one exactly as published', async () => {
    const own = [
      '<html><head><meta content="Mine" property="og:title"></head><p>mine</p></html>',
      '<meta name=twitter:card content=summary><p>mine</p>',
      "<!doctype html><HEAD><META PROPERTY='OG:IMAGE' CONTENT='x.png'></HEAD>",
    ];
    for (const [i, html] of own.entries()) {
      await seedDashboard(store, ada, { slug: `own-${i}`, files: { 'index.html': html } });
      const file = expectFile(await get('ada', `/own-${i}`));
      expect([file.body.toString('utf8'), file.etag], html).to.deep.equal([html, `"${sha256(html)}"`]);
    }
    await seedDashboard(store, ada, { slug: 'secret', visibility: 'private', files: { 'index.html': '<p>secret</p>' } });
    const token = await sessionFor(adaId, 'ada');
    const secret = expectFile(await get('ada', '/secret', { viewerToken: () => token }));
    expect([secret.body.toString('utf8'), secret.etag]).to.deep.equal(['<p>secret</p>', `"${sha256('<p>secret</p>')}"`]);
  });

  it('sends a relative link resolved against / to the referring dashboard file', async () => {
    await seedDashboard(store, ada, { slug: 'sales', files: { 'index.html': 'x', 'data.json': '{}' } });
    expect(await get('ada', '/data.json', { refererPath: () => '/sales' })).to.deep.equal({ kind: 'relative_link', slug: 'sales', filename: 'data.json', visibility: 'public' });
    expect((await get('ada', '/data.json')).kind).to.equal('not_found');
    expect((await get('ada', '/nope.json', { refererPath: () => '/sales' })).kind).to.equal('not_found');
  });

  it('peeks only at public files already cached, never at private ones, aliases or misses', async () => {
    const d = await seedDashboard(store, ada, { slug: 'sales', files: { 'index.html': 'x', 'data.json': '{}' } });
    await seedDashboard(store, ada, { slug: 'secret', visibility: 'private', files: { 'index.html': 's' } });
    expect(serve.peek('ada', '/sales')).to.equal(undefined);
    await get('ada', '/sales');
    await get('ada', '/secret', { viewerToken: () => null });
    const hit = serve.peek('ada', '/sales/');
    expect(ownText(hit!.body)).to.equal('x');
    expect(hit?.dashboardId).to.equal(d.id);
    expect(serve.peek('ada', '/sales')?.page).to.equal(true);
    expect(serve.peek('ada', '/sales/data.json')).to.equal(undefined);
    expect(serve.peek('ada', '/secret')).to.equal(undefined);
    expect(serve.peek('ada', '/sales/__proto__')).to.equal(undefined);
    expect(serve.peek('bob', '/sales')).to.equal(undefined);
    clock.advance(1_001);
    expect(serve.peek('ada', '/sales')).to.equal(undefined);
  });

  it('never takes inherited object keys for file names', async () => {
    await seedDashboard(store, ada, { slug: 'sales', files: { 'index.html': 'x' } });
    for (const name of ['__proto__', 'constructor', 'tostring', 'hasownproperty']) {
      expect((await get('ada', `/sales/${name}`)).kind, name).to.equal('not_found');
    }
  });

  it('reuses metadata for the TTL, then sees changes', async () => {
    const d = await seedDashboard(store, ada, { slug: 'sales', files: { 'index.html': 'x' } });
    expectFile(await get('ada', '/sales'));
    await store.transaction(ada, (tx) => tx.updateDashboard(d.id, { visibility: 'private' }));
    expectFile(await get('ada', '/sales'));
    clock.advance(1_001);
    expect((await get('ada', '/sales')).kind).to.equal('sign_in');
  });

  it('reloads an entry in use shortly before it expires, so steady traffic never waits on the store', async () => {
    const d = await seedDashboard(store, ada, { slug: 'sales', files: { 'index.html': 'x' } });
    await seedDashboard(store, ada, { slug: 'other', files: { 'index.html': 'y' } });
    await get('ada', '/sales');
    await get('ada', '/other');
    await store.transaction(ada, (tx) => tx.updateDashboard(d.id, { visibility: 'private' }));
    clock.advance(800);
    // Still the cached (public) answer, and a background reload starts for each entry in use.
    expect(serve.peek('ada', '/sales')).to.not.equal(undefined);
    expect(serve.peek('ada', '/other')).to.not.equal(undefined);
    await new Promise((resolve) => setImmediate(resolve));
    expect(serve.peek('ada', '/sales')).to.equal(undefined);
    clock.advance(700);
    // Past the first load's expiry, the reload made at 800 ms keeps answering the hot path.
    expect(serve.peek('ada', '/other')).to.not.equal(undefined);
  });

  it('reads each file body from the store once, sharing concurrent loads', async () => {
    await seedDashboard(store, ada, { slug: 'sales', files: { 'index.html': 'x'.repeat(50_000) } });
    await Promise.all(Array.from({ length: 20 }, () => get('ada', '/sales')));
    for (let i = 0; i < 5; i++) expectFile(await get('ada', '/sales'));
    expect(getFileCalls).to.equal(1);
  });
});

describe('application: hosting viewer tickets', () => {
  let clock: ManualClock;
  let viewers: ViewerAccess;
  beforeEach(() => {
    clock = new ManualClock();
    viewers = new ViewerAccess(new MemoryViewerTickets(), clock, DEFAULT_HOSTING_OPTIONS);
  });

  it('exchanges a ticket once, on its own subdomain, with the state that started it', async () => {
    const state = viewers.newState();
    const ticket = await viewers.issueTicket('u1', 'ada', state);
    expect(await viewers.exchange('bob', ticket, state)).to.equal(null);
    const again = await viewers.issueTicket('u1', 'ada', state);
    expect(await viewers.exchange('ada', again, viewers.newState())).to.equal(null);
    const good = await viewers.issueTicket('u1', 'ada', state);
    const session = await viewers.exchange('ada', good, state);
    expect(session?.token).to.match(/^[A-Za-z0-9_-]{43}$/);
    expect(await viewers.exchange('ada', good, state)).to.equal(null);
    expect(await viewers.viewer('ada', session!.token)).to.equal('u1');
  });

  it('refuses an expired ticket and ends the session at its expiry', async () => {
    const state = viewers.newState();
    const late = await viewers.issueTicket('u1', 'ada', state);
    clock.advance(DEFAULT_HOSTING_OPTIONS.ticketTtlMs + 1);
    expect(await viewers.exchange('ada', late, state)).to.equal(null);
    const ticket = await viewers.issueTicket('u1', 'ada', state);
    const session = await viewers.exchange('ada', ticket, state);
    clock.advance(DEFAULT_HOSTING_OPTIONS.viewerSessionTtlMs + 1);
    expect(await viewers.viewer('ada', session!.token)).to.equal(null);
  });

  it('refuses malformed input', async () => {
    let refused = 0;
    for (const [sub, state] of [['Ada!', viewers.newState()], ['ada', 'short'], ['ada', undefined]]) {
      await viewers.issueTicket('u1', sub, state).catch(() => (refused += 1));
    }
    expect(refused).to.equal(3);
    expect(await viewers.exchange('ada', 'nope', 'x')).to.equal(null);
    expect(await viewers.viewer('ada', null)).to.equal(null);
  });

  it('keeps return paths on the same host', () => {
    expect(safeReturnPath('/sales/data.json?x=1')).to.equal('/sales/data.json?x=1');
    for (const bad of ['//evil.example/x', '/\\evil.example', 'https://evil.example/', 'sales', '/a b', '/<script>', undefined, ['/a']]) {
      expect(safeReturnPath(bad), String(bad)).to.equal('/');
    }
  });
});

describe('application: hosting view tally', () => {
  it('batches counts per dashboard and UTC day, with nothing about the viewer', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T23:59:59Z'));
    const counter = new MemoryViewCounter();
    const tally = new ViewTally(counter, clock, new MemoryShareLinkStore());
    tally.record('d1');
    tally.record('d1');
    tally.record('d2');
    clock.advance(2_000);
    tally.record('d1');
    expect(await counter.daily(['d1', 'd2'])).to.deep.equal([]);
    await tally.flush();
    expect(tally.pendingViews).to.equal(0);
    expect(await counter.daily(['d1', 'd2'])).to.deep.equal([
      { dashboardId: 'd1', day: '2026-03-01', views: 2 },
      { dashboardId: 'd2', day: '2026-03-01', views: 1 },
      { dashboardId: 'd1', day: '2026-03-02', views: 1 },
    ]);
    tally.record('d1');
    await tally.flush();
    expect(await counter.daily(['d1'], '2026-03-02')).to.deep.equal([{ dashboardId: 'd1', day: '2026-03-02', views: 2 }]);
  });

  it('keeps counts of a failed write for the next flush', async () => {
    const written: DailyViews[][] = [];
    let fail = true;
    const counter: ViewCounter = {
      add: async (counts) => {
        if (fail) throw new Error('database down');
        written.push(counts);
      },
      daily: async () => [],
    };
    const tally = new ViewTally(counter, new ManualClock(), new MemoryShareLinkStore());
    tally.record('d1');
    let failed = false;
    await tally.flush().catch(() => (failed = true));
    expect(failed).to.equal(true);
    tally.record('d1');
    fail = false;
    await tally.flush();
    expect(written).to.deep.equal([[{ dashboardId: 'd1', day: '2026-03-01', views: 2 }]]);
  });

  it('counts views through a share link per link, with the last use, and keeps them when their write fails', async () => {
    const clock = new ManualClock(Date.parse('2026-03-01T10:00:00Z'));
    const written: LinkViews[][] = [];
    let fail = true;
    const links = {
      addViews: async (counts: LinkViews[]) => {
        if (fail) throw new Error('database down');
        written.push(counts);
      },
    } as unknown as ShareLinkStore;
    const counter = new MemoryViewCounter();
    const tally = new ViewTally(counter, clock, links);
    tally.record('d1', 'link-1');
    clock.advance(5_000);
    tally.record('d1', 'link-1');
    tally.record('d1');
    await tally.flush().catch(() => undefined);
    // The dashboard's daily views were written; the link's are kept for the next flush.
    expect(await counter.daily(['d1'])).to.deep.equal([{ dashboardId: 'd1', day: '2026-03-01', views: 3 }]);
    fail = false;
    await tally.flush();
    expect(written).to.deep.equal([[{ linkId: 'link-1', views: 2, lastUsedAt: new Date('2026-03-01T10:00:05Z') }]]);
    expect(await counter.daily(['d1'])).to.deep.equal([{ dashboardId: 'd1', day: '2026-03-01', views: 3 }]);
  });
});
