import { createHash } from 'node:crypto';
import { expect } from 'chai';
import { ManageEmbeds } from '../../application/sharing/manage-embeds.js';
import { imageWorld, pngStats, type ImageWorld } from '../support/image-fixtures.js';
import { sql } from '../support/warehouse.js';

/**
 * Issue 33: PNG images of spec dashboards on the dashboards host, light and dark, and the link-preview
 * tags of their pages, over HTTP against PostgreSQL (images decoded with pngjs).
 */
describe('e2e: dashboard images and link previews (PostgreSQL)', function () {
  this.timeout(120_000);
  let world: ImageWorld;

  before(async () => {
    world = await imageWorld();
  });

  after(async () => {
    await world?.close();
  });

  afterEach(() => expect(world.server.errors).to.deep.equal([]));

  it('a refreshed spec dashboard has non-blank PNGs of its page and of each panel, in both themes, light and dark differing', async () => {
    const { ada } = world;
    for (const [path, width] of [['/_image/sales.png', 1200], ['/_image/sales/trend.png', 800], ['/_image/sales/total.png', 800], ['/_image/sales/rows.png', 800], ['/_image/sales/notes.png', 800]] as const) {
      const light = await world.get(ada.handle, path);
      const dark = await world.get(ada.handle, `${path}?theme=dark`);
      const explicit = await world.get(ada.handle, `${path}?theme=light`);
      for (const res of [light, dark]) {
        expect([res.status, res.headers['content-type'], res.headers['cache-control']], path).to.deep.equal([200, 'image/png', 'public, max-age=0, must-revalidate']);
        expect(res.headers.etag).to.match(/^"img-[0-9a-f]{40}"$/);
      }
      expect(explicit.headers.etag).to.equal(light.headers.etag);
      expect(dark.headers.etag).to.not.equal(light.headers.etag);
      const [l, d] = [pngStats(light.body), pngStats(dark.body)];
      expect([l.width, d.width], path).to.deep.equal([width, width]);
      expect(l.variance, `${path} light`).to.be.greaterThan(50);
      expect(d.variance, `${path} dark`).to.be.greaterThan(50);
      expect(l.mean - d.mean, path).to.be.greaterThan(80);
    }
  });

  it('answers a held ETag with 304, and a refresh with new data gives new images', async () => {
    const { ada } = world;
    const first = await world.get(ada.handle, '/_image/sales/trend.png');
    const again = await world.get(ada.handle, '/_image/sales/trend.png', { 'if-none-match': first.headers.etag! });
    expect([again.status, again.body.length, again.headers.etag]).to.deep.equal([304, 0, first.headers.etag]);
    await sql(world.warehouse.adminUrl, "INSERT INTO sales VALUES ('2024-01-04', 'north', 999)");
    await world.refresh('sales');
    const after = await world.get(ada.handle, '/_image/sales/trend.png', { 'if-none-match': first.headers.etag! });
    expect(after.status).to.equal(200);
    expect(after.headers.etag).to.not.equal(first.headers.etag);
    expect(after.body.equals(first.body)).to.equal(false);
  });

  it('has no image for an unknown panel, a panel of a body page or another extension: the page 404', async () => {
    const { ada } = world;
    const missing = await world.get(ada.handle, '/_image/nope.png');
    for (const path of ['/_image/sales/nope.png', '/_image/plain/trend.png', '/_image/sales.jpg', '/_image/sales', '/_image/']) {
      const res = await world.get(ada.handle, path);
      expect([res.status, res.headers['content-type']], path).to.deep.equal([404, 'text/html; charset=utf-8']);
      expect(res.text, path).to.equal(missing.text);
    }
  });

  it('gives a page published as a body a generated card, light and dark, that changes with a new publish', async () => {
    const { ada } = world;
    const light = await world.get(ada.handle, '/_image/plain.png');
    const dark = await world.get(ada.handle, '/_image/plain.png?theme=dark');
    expect([light.status, dark.status, light.headers['content-type']]).to.deep.equal([200, 200, 'image/png']);
    const [l, d] = [pngStats(light.body), pngStats(dark.body)];
    expect([l.width, l.height, d.width, d.height]).to.deep.equal([1200, 630, 1200, 630]);
    expect(l.variance).to.be.greaterThan(50);
    expect(l.mean - d.mean).to.be.greaterThan(80);
    await world.publishBody('plain', '<p>plain, again</p>');
    const after = await world.get(ada.handle, '/_image/plain.png', { 'if-none-match': light.headers.etag! });
    expect(after.status).to.equal(200);
    expect(after.headers.etag).to.not.equal(light.headers.etag);
  });

  it('puts link-preview tags on a public spec page, with the PNG as og:image, and none on a private one', async () => {
    const { ada, settings } = world;
    const page = await world.get(ada.handle, '/sales');
    expect(page.status).to.equal(200);
    const origin = `http://${ada.handle}.${settings.dashboardDomain}`;
    expect(page.text).to.contain('<meta property="og:title" content="Sales">');
    expect(page.text).to.contain('<meta property="og:description" content="Daily sales by day.">');
    expect(page.text).to.contain(`<meta property="og:image" content="${origin}/_image/sales.png">`);
    expect(page.text).to.contain(`<meta property="og:url" content="${origin}/sales">`);
    expect(page.text).to.contain('<meta name="twitter:card" content="summary_large_image">');
    const cookie = await world.viewerCookie(ada.id, ada.handle);
    const privatePage = await world.get(ada.handle, '/books', { cookie });
    expect([privatePage.status, privatePage.headers['cache-control']]).to.deep.equal([200, 'private, no-store']);
    expect(privatePage.text).to.contain('<h1>Sales</h1>');
    expect(privatePage.text).to.not.match(/og:|twitter:/);
    expect(privatePage.headers.etag).to.match(/-private"$/);
    const privateImage = await world.get(ada.handle, '/_image/books.png', { cookie });
    expect([privateImage.status, privateImage.headers['cache-control'], privateImage.headers['cross-origin-resource-policy']]).to.deep.equal([200, 'private, no-store', 'same-origin']);
    expect(pngStats(privateImage.body).width).to.equal(1200);
    // A signed embed of the private page is not a public answer either.
    const embeds = world.app.container.get(ManageEmbeds);
    const operator = { kind: 'operator' } as const;
    await embeds.configure(operator, { owner: ada.handle }, 'books', { enabled: true });
    const signed = await embeds.signedUrl(operator, { owner: ada.handle }, 'books', 3_600_000);
    const embedded = await world.get(ada.handle, signed.pathAndQuery);
    expect(embedded.status).to.equal(200);
    expect(embedded.text).to.contain('<h1>Sales</h1>').and.not.match(/og:|twitter:/);
  });

  it('pins a spec page to a theme with ?theme=light|dark, and ignores any other value', async () => {
    const { ada } = world;
    const auto = await world.get(ada.handle, '/sales');
    expect(auto.text.startsWith('<!doctype html>\n<html lang="en" data-theme="auto">')).to.equal(true);
    expect(auto.text).to.contain('<meta name="color-scheme" content="light dark">');
    for (const theme of ['dark', 'light'] as const) {
      const pinned = await world.get(ada.handle, `/sales?theme=${theme}`);
      expect(pinned.status).to.equal(200);
      expect(pinned.text.startsWith(`<!doctype html>\n<html lang="en" data-theme="${theme}">`)).to.equal(true);
      expect(pinned.text.slice(pinned.text.indexOf('<head>'))).to.equal(auto.text.slice(auto.text.indexOf('<head>')));
      expect(pinned.headers.etag).to.equal(auto.headers.etag!.replace(/"$/, `-${theme}"`));
    }
    const odd = await world.get(ada.handle, '/sales?theme=%22%3E%3Cscript%3Ealert(1)%3C%2Fscript%3E');
    expect([odd.text, odd.headers.etag]).to.deep.equal([auto.text, auto.headers.etag]);
    // A body page is never rewritten.
    const plain = await world.get(ada.handle, '/plain');
    expect((await world.get(ada.handle, '/plain?theme=dark')).text).to.equal(plain.text);
  });

  it('gives a public page published as a body the preview tags, its card as the image, only when it has none of its own', async () => {
    const { ada } = world;
    await world.publishBody('plain', '<!doctype html><title>Plain</title><p>plain</p>');
    const plain = await world.get(ada.handle, '/plain');
    const [doctype, line, ...rest] = plain.text.split('\n');
    expect([doctype, rest.join('\n')]).to.deep.equal(['<!doctype html>', '<title>Plain</title><p>plain</p>']);
    const tags = Object.fromEntries([...line!.matchAll(/<meta (?:property|name)="([^"]+)" content="([^"]*)">/g)].map((m) => [m[1], m[2]]));
    const url = `${world.settings.dashboardScheme}://${ada.handle}.${world.settings.dashboardDomain}/plain`;
    expect(tags).to.deep.equal({
      'og:type': 'website',
      'og:title': 'plain',
      'og:description': `Dashboard by ${ada.handle}`,
      'og:url': url,
      'og:image': url.replace(/\/plain$/, '/_image/plain.png'),
      'og:image:width': '1200',
      'og:image:height': '630',
      'og:image:alt': 'plain',
      'twitter:card': 'summary_large_image',
    });
    expect(plain.headers.etag).to.match(/-preview-[0-9a-f]{16}"$/);
    // The fast path answers the very same bytes once the page is cached.
    const again = await world.get(ada.handle, '/plain');
    expect([again.text, again.headers.etag]).to.deep.equal([plain.text, plain.headers.etag]);
    const card = await world.get(ada.handle, '/_image/plain.png');
    expect([card.status, pngStats(card.body).width, pngStats(card.body).height]).to.deep.equal([200, 1200, 630]);

    // A name with markup stays text in the tags.
    await world.call('update_dashboard', { slug: 'plain', name: '"><script>alert(1)</script>' });
    const named = await world.get(ada.handle, '/plain');
    expect(named.text).to.contain('<meta property="og:title" content="&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;">');
    expect(named.text).to.not.contain('<script>');

    // A private page gives no preview data, to its owner either.
    await world.call('update_dashboard', { slug: 'plain', visibility: 'private' });
    const owner = await world.get(ada.handle, '/plain', { cookie: await world.viewerCookie(ada.id, ada.handle) });
    expect(owner.text).to.equal('<!doctype html><title>Plain</title><p>plain</p>');
    await world.call('update_dashboard', { slug: 'plain', visibility: 'public' });

    // A page with tags of its own is served byte for byte as published.
    const own = '<!doctype html><html><head><meta name="twitter:card" content="summary"><title>Mine</title></head><body>mine</body></html>';
    await world.publishBody('plain', own);
    const mine = await world.get(ada.handle, '/plain');
    expect([mine.text, mine.headers.etag]).to.deep.equal([own, `"${createHash('sha256').update(own).digest('hex')}"`]);
  });

  it('leads an old slug\'s images to the new one for good, panel and theme kept', async () => {
    const { ada } = world;
    await world.call('rename_dashboard', { slug: 'sales', new_slug: 'revenue' });
    const moved = await world.get(ada.handle, '/_image/sales/trend.png?theme=dark');
    expect([moved.status, moved.headers.location]).to.deep.equal([301, '/_image/revenue/trend.png?theme=dark']);
    const image = await world.get(ada.handle, moved.headers.location!);
    expect([image.status, pngStats(image.body).width]).to.deep.equal([200, 800]);
  });
});
