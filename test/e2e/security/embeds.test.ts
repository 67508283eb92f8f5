import { createHmac } from 'node:crypto';
import { expect } from 'chai';
import type { Browser, Page } from 'playwright-core';
import { DataSource } from 'typeorm';
import { AdminAccounts } from '../../../application/accounts/admin-accounts.js';
import { PublishDashboard } from '../../../application/dashboards/publish-dashboard.js';
import { ViewTally } from '../../../application/hosting/view-tally.js';
import { ManageEmbeds } from '../../../application/sharing/manage-embeds.js';
import type { SharingActor } from '../../../application/sharing/sharing-targets.js';
import { escapeHtml } from '../../../domain/html.js';
import { buildContainer } from '../../../shells/container.js';
import { startServer, type RunningServer } from '../../../shells/koa/server.js';
import { launchChromium, openPage } from '../../support/browser.js';
import { createMigratedTestDatabase, type TestDatabase } from '../../support/database.js';
import { ManualClock } from '../../support/hosting-fixtures.js';
import { hostRequest, type RawResponse } from '../../support/hosting-http.js';
import { captureLogs } from '../../support/logs.js';
import { aPrincipal, workspaceLock } from '../../support/mothers.js';
import { refusal } from '../../support/refusal.js';
import { freePort, listen, type Listening } from '../../support/server.js';
import { testSettings } from '../../support/settings.js';

const MARKER = 'Embedded sales figures';
const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/**
 * Signed embeds (issue 32) over HTTP and in Chromium, against the real server on PostgreSQL: what a valid
 * URL serves and with which headers, every way of tampering with it, rotation, the switch, tenancy, the
 * default framing of everything else on the dashboards host, and the logs.
 */
describe('e2e security: signed embeds', function () {
  this.timeout(120_000);
  const clock = new ManualClock(Date.now());
  const logs = captureLogs('debug');
  let database: TestDatabase;
  let server: RunningServer;
  let hostPages: Listening;
  let browser: Browser;
  let manage: ManageEmbeds;
  let port: number;
  let allowed: string;
  let other: string;
  let appOrigin: string;
  let secret: string;
  const ada: SharingActor = { kind: 'person', userId: '' };
  const bob: SharingActor = { kind: 'person', userId: '' };
  const carol: SharingActor = { kind: 'person', userId: '' };
  const seen: string[] = [];

  const host = (sub: string) => `${sub}.dash.localhost:${port}`;
  const get = (sub: string, path: string, method = 'GET'): Promise<RawResponse> => hostRequest(port, host(sub), path, { method, headers: { accept: 'text/html' } });
  const sign = (key: string, message: string) => createHmac('sha256', key).update(message).digest('hex');
  const signedPath = async (actor: SharingActor, owner: string, slug: string, lifetimeMs = HOUR) => {
    const signed = await manage.signedUrl(actor, { ownerName: owner }, slug, lifetimeMs);
    seen.push(signed.pathAndQuery.split('sig=')[1]!);
    return signed.pathAndQuery;
  };

  before(async () => {
    database = await createMigratedTestDatabase();
    port = await freePort();
    appOrigin = `http://app.localhost:${port}`;
    const settings = testSettings({ port, baseUrl: `http://localhost:${port}`, appUrl: appOrigin, dashboardDomain: `dash.localhost:${port}`, databaseUrl: database.url, logLevel: 'info' });
    const container = await buildContainer(settings, { role: 'server', clock, logger: logs.logger });
    server = await startServer(settings, { container });
    hostPages = await listen(async (ctx) => {
      ctx.type = 'html';
      ctx.body = `<!doctype html><title>Host page</title><iframe title="dashboard" src="${escapeHtml(String(ctx.query.src))}"></iframe>`;
    });
    allowed = `http://partner.localhost:${hostPages.port}`;
    other = `http://elsewhere.localhost:${hostPages.port}`;
    const admin = server.app.container.get(AdminAccounts);
    const password = 'a long enough password';
    const [a, b, c] = await Promise.all(['ada', 'bob', 'carol'].map((handle) => admin.addUser({ handle, email: `${handle}@example.com`, password })));
    Object.assign(ada, { userId: a!.id });
    Object.assign(bob, { userId: b!.id });
    Object.assign(carol, { userId: c!.id });
    const acme = await admin.addWorkspace({ slug: 'acme', name: 'Acme' });
    await admin.addMember({ workspace: 'acme', handle: 'ada', role: 'admin' });
    await admin.addMember({ workspace: 'acme', handle: 'carol' });
    const publish = server.app.container.get(PublishDashboard);
    const page = (text: string) => `<!doctype html><title>${text}</title><p id="marker">${text}</p>`;
    await publish.execute(aPrincipal(a!.id), { path: 'sales', body: page(MARKER) });
    await publish.execute(aPrincipal(a!.id), { path: 'diary', body: page('Dear diary'), visibility: 'private' });
    await publish.execute(aPrincipal(a!.id), { path: 'counted', body: page('Counted') });
    await publish.execute(aPrincipal(b!.id), { path: 'own', body: page('Bob') });
    await publish.execute(aPrincipal(c!.id, { lock: workspaceLock(acme) }), { path: 'plan', body: page('Acme plan') });
    manage = server.app.container.get(ManageEmbeds);
    const on = await manage.configure(ada, { ownerName: 'ada' }, 'sales', { enabled: true, origins: { replace: [allowed] } });
    secret = on.secret!;
    seen.push(secret);
    await manage.configure(ada, { ownerName: 'ada' }, 'diary', { enabled: true, origins: { replace: [allowed] } });
    await manage.configure(ada, { ownerName: 'ada' }, 'counted', { enabled: true, origins: { replace: [allowed] } });
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    await hostPages?.close();
    await server?.close();
    await database?.drop();
  });

  /** The host's one 404 page, as for a dashboard that does not exist. */
  async function expectPlain404(res: RawResponse) {
    const missing = await get('ada', '/no-such-dashboard');
    expect([res.status, res.text]).to.deep.equal([404, missing.text]);
  }

  it('serves a signed URL made as the README shows, for framing by the listed origins only, never cached or sent as a Referer', async () => {
    const exp = Math.floor(clock.now().getTime() / 1000) + 3600;
    const path = `/_embed/sales?exp=${exp}`;
    const readme = `${path}&sig=${sign(secret, path)}`;
    expect(await signedPath(ada, 'ada', 'sales')).to.equal(readme);
    const res = await get('ada', readme);
    expect(res.status).to.equal(200);
    expect(res.text).to.contain(MARKER);
    expect(res.headers['content-security-policy']).to.equal(`frame-ancestors ${allowed}`);
    expect(res.headers['cache-control']).to.equal('private, no-store');
    expect(res.headers['referrer-policy']).to.equal('no-referrer');
    expect(res.headers['x-frame-options']).to.equal(undefined);
  });

  it('answers a forged signature, a changed path or expiry, extra parameters and a URL past or too far ahead with the plain 404', async () => {
    const valid = await signedPath(ada, 'ada', 'sales');
    const [, exp, sig] = /exp=(\d+)&sig=([0-9a-f]+)$/.exec(valid)!;
    const now = Math.floor(clock.now().getTime() / 1000);
    const forged = [
      `/_embed/sales?exp=${exp}&sig=${'0'.repeat(64)}`,
      `/_embed/sales?exp=${exp}&sig=${sign('a guessed secret', `/_embed/sales?exp=${exp}`)}`,
      `/_embed/diary?exp=${exp}&sig=${sig}`,
      `/_embed/sales?exp=${Number(exp) + 1}&sig=${sig}`,
      `/_embed/sales/?exp=${exp}&sig=${sig}`,
      `/_embed/sales/data.json?exp=${exp}&sig=${sig}`,
      `${valid}&theme=dark`,
      `/_embed/sales?exp=${exp}`,
      `/_embed/sales`,
      `/_embed/sales?exp=${now - 60}&sig=${sign(secret, `/_embed/sales?exp=${now - 60}`)}`,
      `/_embed/sales?exp=${now + 31 * 86_400}&sig=${sign(secret, `/_embed/sales?exp=${now + 31 * 86_400}`)}`,
    ];
    for (const path of forged) await expectPlain404(await get('ada', path));
    // Signed for 30 days by the host page itself: accepted.
    const month = now + 30 * 86_400;
    expect((await get('ada', `/_embed/sales?exp=${month}&sig=${sign(secret, `/_embed/sales?exp=${month}`)}`)).status).to.equal(200);
  });

  it('stops serving a URL once its expiry passes', async () => {
    const path = await signedPath(ada, 'ada', 'sales', HOUR);
    expect((await get('ada', path)).status).to.equal(200);
    clock.advance(HOUR);
    try {
      await expectPlain404(await get('ada', path));
    } finally {
      clock.advance(-HOUR);
    }
  });

  it('refuses URLs longer than 30 days when asked to make one', async () => {
    expect((await refusal(manage.signedUrl(ada, { ownerName: 'ada' }, 'sales', 31 * DAY))).message).to.equal('expiry must be at most 30 days ahead');
  });

  it('kills every earlier URL when the secret is rotated', async () => {
    const before = [await signedPath(ada, 'ada', 'sales'), await signedPath(ada, 'ada', 'diary')];
    for (const path of before) expect((await get('ada', path)).status).to.equal(200);
    const rotated = await manage.rotateSecret(ada, { ownerName: 'ada' }, 'sales');
    expect(rotated.secret).to.not.equal(secret);
    secret = rotated.secret;
    seen.push(secret);
    for (const path of before) await expectPlain404(await get('ada', path));
    expect((await get('ada', await signedPath(ada, 'ada', 'sales'))).status).to.equal(200);
  });

  it('answers 404 to a valid URL while embedding is off, and serves it again once it is on', async () => {
    const path = await signedPath(ada, 'ada', 'sales');
    await manage.configure(ada, { ownerName: 'ada' }, 'sales', { enabled: false });
    try {
      await expectPlain404(await get('ada', path));
      expect((await refusal(manage.signedUrl(ada, { ownerName: 'ada' }, 'sales', HOUR))).message).to.equal('Embedding is off for this dashboard: turn it on first.');
    } finally {
      await manage.configure(ada, { ownerName: 'ada' }, 'sales', { enabled: true });
    }
    expect((await get('ada', path)).status).to.equal(200);
  });

  it('serves a private dashboard only through a valid signature; its own URL still asks for sign-in', async () => {
    const res = await get('ada', await signedPath(ada, 'ada', 'diary'));
    expect([res.status, res.text.includes('Dear diary')]).to.deep.equal([200, true]);
    expect((await get('ada', '/diary')).status).to.equal(302);
    await expectPlain404(await get('ada', `/_embed/diary?exp=${Math.floor(clock.now().getTime() / 1000) + 60}&sig=${'a'.repeat(64)}`));
  });

  it('counts an embed view as a view of the page', async () => {
    await get('ada', await signedPath(ada, 'ada', 'counted'));
    await get('ada', await signedPath(ada, 'ada', 'counted'), 'HEAD');
    await server.app.container.get(ViewTally).flush();
    const rows: Array<{ views: string }> = await server.app.container.get(DataSource).query(
      `SELECT v.views FROM dashboard_views_daily v JOIN dashboards d ON d.id = v.dashboard_id WHERE d.slug = 'counted'`,
    );
    expect(rows.reduce((sum, row) => sum + Number(row.views), 0)).to.equal(1);
  });

  it('lets no other owner, and no workspace member but its admins, configure embedding or get a URL (the missing-dashboard answer)', async () => {
    const attempts = (actor: SharingActor, owner: string, slug: string) => [
      () => manage.status(actor, { ownerName: owner }, slug),
      () => manage.configure(actor, { ownerName: owner }, slug, { enabled: true, origins: { add: 'https://evil.example' } }),
      () => manage.signedUrl(actor, { ownerName: owner }, slug, HOUR),
      () => manage.rotateSecret(actor, { ownerName: owner }, slug),
    ];
    for (const attempt of [...attempts(bob, 'ada', 'sales'), ...attempts(carol, 'acme', 'plan'), ...attempts(ada, 'ada', 'no-such-dashboard')]) {
      const error = await refusal(attempt());
      expect([error.code, error.message]).to.deep.equal(['not_found', 'No such dashboard']);
    }
    expect((await manage.status(ada, { ownerName: 'ada' }, 'sales')).origins).to.deep.equal([allowed]);
    expect((await manage.configure(ada, { ownerName: 'acme' }, 'plan', { enabled: true })).secret).to.be.a('string');
  });

  it("does not accept a URL signed with another owner's secret", async () => {
    const bobs = await manage.configure(bob, { ownerName: 'bob' }, 'own', { enabled: true, origins: { replace: [allowed] } });
    seen.push(bobs.secret!);
    const exp = Math.floor(clock.now().getTime() / 1000) + 600;
    const message = `/_embed/sales?exp=${exp}`;
    await expectPlain404(await get('ada', `${message}&sig=${sign(bobs.secret!, message)}`));
    const own = await signedPath(bob, 'bob', 'own');
    await expectPlain404(await get('ada', own.replace('/own?', '/sales?')));
    expect((await get('bob', own)).status).to.equal(200);
  });

  it('lets nothing else on the dashboards host be framed by other sites: public files (cold and cached) allow only the host and the web app', async () => {
    for (const attempt of [1, 2]) {
      const res = await get('ada', '/sales');
      expect(res.headers['content-security-policy'], `answer ${attempt}`).to.equal(`frame-ancestors 'self' ${appOrigin}`);
    }
    expect((await get('ada', '/no-such')).headers['content-security-policy']).to.contain("frame-ancestors 'none'");
  });

  async function framed(page: Page, origin: string, src: string): Promise<string | null> {
    await page.goto(`${origin}/?src=${encodeURIComponent(src)}`);
    await page.waitForLoadState('load');
    const frame = page.frames().find((f) => f !== page.mainFrame());
    expect(frame, 'the host page has its frame').to.not.equal(undefined);
    // A frame the browser refused holds its error page, in which there is no marker.
    return frame!.evaluate(() => document.getElementById('marker')?.textContent ?? null);
  }

  it('in Chromium: a page on an allowed origin frames the embed; a page on another origin can frame neither it nor the public dashboard', async () => {
    const { context, page } = await openPage(browser);
    const blocked: string[] = [];
    page.on('console', (message) => blocked.push(message.text()));
    try {
      const embed = `http://${host('ada')}${await signedPath(ada, 'ada', 'sales')}`;
      expect(await framed(page, allowed, embed)).to.equal(MARKER);
      expect(await framed(page, other, embed)).to.equal(null);
      expect(await framed(page, other, `http://${host('ada')}/sales`)).to.equal(null);
      expect(blocked.filter((text) => text.includes('frame-ancestors')).length).to.equal(2);
    } finally {
      await context.close();
    }
  });

  it('writes neither an embed secret nor a signature to any log line', async () => {
    const all = logs.lines.map((line) => JSON.stringify(line)).join('\n');
    expect(all, 'embed requests are logged (by path)').to.contain('"path":"/_embed/sales"');
    expect(seen.length).to.be.greaterThan(5);
    for (const value of seen) expect(all).to.not.contain(value);
  });
});
