import { expect } from 'chai';
import { WebSessionService } from '../../application/auth/web-session-service.js';
import { PublishDashboard } from '../../application/dashboards/publish-dashboard.js';
import { AccountStore } from '../../application/ports/account-store.js';
import { DashboardStore } from '../../application/ports/dashboard-store.js';
import { sessionCookieName } from '../../application/ports/web-sessions.js';
import { hostRequest } from '../support/hosting-http.js';
import { imageWorld, pngStats, type ImageWorld } from '../support/image-fixtures.js';
import { aPrincipal, aWorkspace, workspaceLock } from '../support/mothers.js';

/**
 * Issue 33: the web app's dashboards list and each dashboard's page show the dashboard's image as a
 * lazy-loaded thumbnail, served on the app's own origin to the signed-in person who may see the dashboard
 * (docs/decisions/0230-thumbnails-on-the-app-origin.md). Over HTTP, in process, against PostgreSQL.
 */
describe('e2e: thumbnails in the web app', function () {
  this.timeout(120_000);
  let world: ImageWorld;
  let adaCookie: string;
  let bobCookie: string;
  let adaHandle: string;
  let bobHandle: string;

  /** GET on the app host, as the holder of `cookie` (none when empty). */
  const app = (path: string, cookie: string, headers: Record<string, string> = {}) =>
    hostRequest(world.server.port, new URL(world.settings.appUrl).host, path, { headers: { ...(cookie ? { cookie } : {}), ...headers } });
  const signedIn = async (userId: string) => {
    const { token } = await world.app.container.get(WebSessionService).start(userId);
    return `${sessionCookieName(world.settings.appUrl)}=${token}`;
  };
  const nameOf = async (slug: string) => (await world.app.container.get<DashboardStore>(DashboardStore).findDashboard({ kind: 'user', id: world.ada.id }, slug))!.name;
  const escaped = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

  before(async () => {
    world = await imageWorld({ dashboardsPages: true });
    adaHandle = world.ada.handle;
    bobHandle = world.bob.handle;
    [adaCookie, bobCookie] = await Promise.all([signedIn(world.ada.id), signedIn(world.bob.id)]);
  });

  after(async () => {
    await world?.close();
  });

  afterEach(() => expect(world.server.errors).to.deep.equal([]));

  it('lists every dashboard with its lazy thumbnail in both schemes, named by its alt text, under a policy allowing the app\'s own images', async () => {
    const list = await app(`/dashboards?owner=${adaHandle}`, adaCookie);
    expect(list.status).to.equal(200);
    expect(list.headers['content-security-policy']).to.contain("img-src 'self' data:;");
    for (const slug of ['books', 'plain', 'sales']) {
      const path = `/dashboards/${adaHandle}/${slug}/thumbnail.png`;
      expect(list.text, slug).to.contain(
        `<picture class="thumb"><source media="(prefers-color-scheme: dark)" srcset="${path}?theme=dark"><img src="${path}" alt="${escaped(await nameOf(slug))}" loading="lazy" decoding="async"></picture>`,
      );
    }
    const detail = await app(`/dashboards/${adaHandle}/books`, adaCookie);
    expect(detail.status).to.equal(200);
    expect(detail.headers['content-security-policy']).to.match(/img-src 'self' data:;.*; frame-src /);
    expect(detail.text).to.contain(`<picture class="image"><source media="(prefers-color-scheme: dark)" srcset="/dashboards/${adaHandle}/books/thumbnail.png?theme=dark">`);
    // Other app pages keep the data:-only policy.
    expect((await app('/account', adaCookie)).headers['content-security-policy']).to.contain('img-src data:;');
  });

  it('serves the owner each dashboard\'s image, private or public, spec or body, privately cached and revalidated by ETag', async () => {
    const sales = await app(`/dashboards/${adaHandle}/sales/thumbnail.png`, adaCookie);
    expect([sales.status, sales.headers['content-type'], sales.headers['cache-control']]).to.deep.equal([200, 'image/png', 'private, no-cache']);
    expect(sales.headers['x-content-type-options']).to.equal('nosniff');
    expect(sales.headers['cross-origin-resource-policy']).to.equal('same-origin');
    const stats = pngStats(sales.body);
    expect(stats.width).to.equal(1200);
    expect(stats.variance).to.be.greaterThan(50);
    // The very image the dashboards host serves: one drawing, one ETag.
    const hosted = await world.get(adaHandle, '/_image/sales.png');
    expect(hosted.headers.etag).to.equal(sales.headers.etag);
    expect(hosted.body.equals(sales.body)).to.equal(true);

    const dark = await app(`/dashboards/${adaHandle}/sales/thumbnail.png?theme=dark`, adaCookie);
    expect(dark.status).to.equal(200);
    expect(dark.headers.etag).to.not.equal(sales.headers.etag);
    expect(pngStats(dark.body).mean).to.be.lessThan(stats.mean);

    const again = await app(`/dashboards/${adaHandle}/sales/thumbnail.png`, adaCookie, { 'if-none-match': sales.headers.etag! });
    expect([again.status, again.body.length, again.headers.etag]).to.deep.equal([304, 0, sales.headers.etag]);

    const books = await app(`/dashboards/${adaHandle}/books/thumbnail.png`, adaCookie);
    expect([books.status, pngStats(books.body).width]).to.deep.equal([200, 1200]);
    const card = await app(`/dashboards/${adaHandle}/plain/thumbnail.png`, adaCookie);
    const cardStats = pngStats(card.body);
    expect([card.status, cardStats.width, cardStats.height]).to.deep.equal([200, 1200, 630]);
    expect(cardStats.variance).to.be.greaterThan(50);
  });

  it('sends a visitor without a session to sign in, and answers another user\'s or another workspace\'s thumbnail with the same 404 as a missing one', async () => {
    const anonymous = await app(`/dashboards/${adaHandle}/books/thumbnail.png`, '');
    expect(anonymous.status).to.equal(303);
    expect(anonymous.headers.location).to.equal(`/sign-in?return_to=${encodeURIComponent(`/dashboards/${adaHandle}/books/thumbnail.png`)}`);

    const missing = await app(`/dashboards/${bobHandle}/nope/thumbnail.png`, bobCookie);
    expect(missing.status).to.equal(404);
    const attempts = [
      `/dashboards/${adaHandle}/books/thumbnail.png`,
      `/dashboards/${adaHandle}/sales/thumbnail.png?theme=dark`,
      `/dashboards/${adaHandle}/plain/thumbnail.png`,
      `/dashboards/${adaHandle}/nope/thumbnail.png`,
      `/dashboards/${bobHandle}/..%2F${adaHandle}%2Fbooks/thumbnail.png`,
      `/dashboards/${bobHandle}/BOOKS/thumbnail.png`,
      `/dashboards/${bobHandle}/__proto__/thumbnail.png`,
      `/dashboards/%22%3E%3Cscript%3E/books/thumbnail.png`,
    ];
    for (const path of attempts) {
      const res = await app(path, bobCookie);
      expect([res.status, res.text, res.headers['content-type']], path).to.deep.equal([404, missing.text, 'text/html; charset=utf-8']);
    }
    // A workspace's thumbnail: its members see it, anyone else gets the same 404.
    const accounts = world.app.container.get<AccountStore>(AccountStore);
    const team = await aWorkspace(accounts, { slug: `team-${adaHandle}`, name: 'Team' });
    await accounts.addMember(team.id, world.ada.id, 'member');
    await world.app.container.get(PublishDashboard).execute(aPrincipal(world.ada.id, { lock: workspaceLock(team) }), { path: 'plan', body: '<p>plan</p>', visibility: 'private' });
    const member = await app(`/dashboards/${team.slug}/plan/thumbnail.png`, adaCookie);
    expect([member.status, pngStats(member.body).height]).to.deep.equal([200, 630]);
    const outsider = await app(`/dashboards/${team.slug}/plan/thumbnail.png`, bobCookie);
    expect([outsider.status, outsider.text]).to.deep.equal([404, missing.text]);

    // A forged session cookie is no session at all.
    const forged = await app(`/dashboards/${adaHandle}/books/thumbnail.png`, `${sessionCookieName(world.settings.appUrl)}=${'x'.repeat(43)}`);
    expect(forged.status).to.equal(303);
  });
});
