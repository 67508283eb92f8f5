import { expect } from 'chai';
import { ManageShareLinks } from '../../../application/sharing/manage-share-links.js';
import { cookiePairs } from '../../support/hosting-http.js';
import { imageWorld, pngStats, type ImageWorld } from '../../support/image-fixtures.js';

const OPERATOR = { kind: 'operator' } as const;

/**
 * Issue 33: a dashboard's images follow exactly its page's access rules. A stranger, another tenant, a
 * share cookie for another dashboard, a path that climbs out of the image paths and a crafted theme all
 * get the page's 404 (or the plain light image), never a private dashboard's pixels.
 */
describe('e2e security: dashboard images', function () {
  this.timeout(120_000);
  let world: ImageWorld;

  before(async () => {
    world = await imageWorld();
  });

  after(async () => {
    await world?.close();
  });

  afterEach(() => expect(world.server.errors).to.deep.equal([]));

  it('refuses a private dashboard\'s images to a stranger with the page\'s 404, and sends a navigation to sign-in like the page', async () => {
    const { ada } = world;
    const pageMissing = await world.get(ada.handle, '/books', { 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' });
    expect(pageMissing.status).to.equal(404);
    for (const path of ['/_image/books.png', '/_image/books/trend.png', '/_image/books.png?theme=dark']) {
      const res = await world.get(ada.handle, path, { 'sec-fetch-mode': 'no-cors', 'sec-fetch-dest': 'image' });
      expect([res.status, res.text, res.headers['set-cookie']], path).to.deep.equal([404, pageMissing.text, undefined]);
      expect(res.headers['content-type']).to.equal('text/html; charset=utf-8');
    }
    const navigation = await world.get(ada.handle, '/_image/books.png', { 'sec-fetch-mode': 'navigate', 'sec-fetch-dest': 'document' });
    expect(navigation.status).to.equal(302);
    expect(new URL(navigation.headers.location!).searchParams.get('return')).to.equal('/_image/books.png');
  });

  it('refuses them to another tenant signed in on the owner\'s host, and to a viewer cookie of another host', async () => {
    const { ada, bob } = world;
    const bobOnAda = await world.viewerCookie(bob.id, ada.handle);
    const adaOnBob = await world.viewerCookie(ada.id, bob.handle);
    for (const cookie of [bobOnAda, adaOnBob, 'dashpub_viewer=' + 'x'.repeat(43)]) {
      const res = await world.get(ada.handle, '/_image/books/rows.png', { cookie, accept: 'image/png' });
      expect(res.status, cookie).to.equal(404);
      expect(res.body.subarray(0, 4).toString('latin1')).to.not.equal('\x89PNG');
    }
    const owner = await world.get(ada.handle, '/_image/books/rows.png', { cookie: await world.viewerCookie(ada.id, ada.handle) });
    expect(owner.status).to.equal(200);
  });

  it('lets a share link\'s cookie see its own dashboard\'s images only', async () => {
    const { ada } = world;
    const links = world.app.container.get(ManageShareLinks);
    const created = await links.create(OPERATOR, { owner: ada.handle }, 'books', { label: 'for images' });
    const opened = await world.get(ada.handle, `/_share/${created.token}`);
    const cookies = cookiePairs(opened.headers);
    const cookie = Object.entries(cookies).filter(([name]) => name.startsWith('dashpub_share_')).map(([k, v]) => `${k}=${v}`).join('; ');
    expect(cookie).to.match(/^dashpub_share_books=/);
    const shared = await world.get(ada.handle, '/_image/books.png', { cookie });
    expect([shared.status, shared.headers['cache-control']]).to.deep.equal([200, 'private, no-store']);
    expect(pngStats(shared.body).width).to.equal(1200);
    // The same cookie value under another dashboard's name grants nothing there.
    const moved = cookie.replace('dashpub_share_books=', 'dashpub_share_sales=');
    await world.app.container.get(ManageShareLinks).create(OPERATOR, { owner: ada.handle }, 'sales', { label: 'other' });
    const other = await world.get(ada.handle, '/_image/books.png', { cookie: moved });
    expect(other.status).to.equal(404);
    await links.revoke(OPERATOR, created.link.id);
    const revoked = await world.get(ada.handle, '/_image/books.png', { cookie });
    expect(revoked.status).to.equal(404);
  });

  it('answers every path that climbs out of or around the image paths with the 404 page', async () => {
    const { ada } = world;
    const missing = await world.get(ada.handle, '/_image/nope.png');
    const attempts = [
      '/_image/sales/..%2Fbooks.png',
      '/_image/sales/%2e%2e.png',
      '/_image/sales/../books.png',
      '/_image/../books.png',
      '/_image/books/..%2f..%2fetc%2fpasswd.png',
      '/_image/sales/trend.png/extra',
      '/_image/sales/trend%00.png',
      '/_image/SALES.png',
      '/_image/sales//trend.png',
      '/_image/sales/' + 'a'.repeat(65) + '.png',
      '/_image/sales/__proto__.png',
      '/_image/sales/constructor.png',
    ];
    for (const path of attempts) {
      const res = await world.get(ada.handle, path);
      expect([res.status, res.text], path).to.deep.equal([404, missing.text]);
    }
  });

  it('takes only light or dark as a theme: anything else is the light image, never reflected', async () => {
    const { ada } = world;
    const light = await world.get(ada.handle, '/_image/sales/total.png');
    for (const theme of ['%22%3E%3Cscript%3E', 'DARK', 'dark%00', '../dark', 'dark&theme=light']) {
      const res = await world.get(ada.handle, `/_image/sales/total.png?theme=${theme}`);
      expect([res.status, res.headers.etag], theme).to.deep.equal([200, light.headers.etag]);
    }
    const twice = await world.get(ada.handle, '/_image/sales/total.png?theme=dark&theme=dark');
    expect(twice.headers.etag).to.equal(light.headers.etag);
  });
});
