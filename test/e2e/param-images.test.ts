import { expect } from 'chai';
import pg from 'pg';
import { hostRequest, type RawResponse } from '../support/hosting-http.js';
import { paramSpec, paramWorld, type ParamWorld } from '../support/param-fixtures.js';

/**
 * Images take the page's query string (issue 34): `/_image/<slug>.png?region=south` draws the rows of those
 * values' render, through the page's budget and cache; the defaults' image stands for invalid values and
 * past the budget. Over HTTP, in process, against PostgreSQL and a warehouse.
 */
describe('images of parameter values (in process, PostgreSQL)', function () {
  this.timeout(180_000);
  let world: ParamWorld;
  let defaults: RawResponse;

  const image = (path: string, server = world.server, headers: Record<string, string> = {}) =>
    hostRequest(server.port, new URL(world.url('/')).host, `/_image/sales${path}`, { headers });

  before(async () => {
    world = await paramWorld({ paramRendersPerMinute: 1000 });
    await world.publish('sales', paramSpec());
    defaults = await image('.png');
  });
  after(async () => world?.close());

  it('draws other values as another PNG under another ETag, the same for either way of writing them', async () => {
    expect([defaults.status, defaults.headers['content-type']]).to.deep.equal([200, 'image/png']);
    const south = await image('.png?region=south');
    expect([south.status, south.headers['content-type']]).to.deep.equal([200, 'image/png']);
    expect(south.headers.etag).not.to.equal(defaults.headers.etag);
    expect(south.body.equals(defaults.body)).to.equal(false);
    const day = await image('.png?region=south&period=2024-01-02..2024-01-02');
    const same = await image('.png?period.to=2024-01-02&region=south&period.from=2024-01-02');
    expect(day.headers.etag).to.equal(same.headers.etag);
    expect(day.headers.etag).not.to.equal(south.headers.etag);
    expect(day.body.equals(south.body)).to.equal(false);
    expect((await image('.png?region=south', world.server, { 'if-none-match': south.headers.etag! })).status).to.equal(304);
  });

  it('draws one panel for the values, and the theme together with them', async () => {
    const panel = await image('/total.png?region=south');
    expect(panel.status).to.equal(200);
    expect(panel.headers.etag).not.to.equal((await image('/total.png')).headers.etag);
    const dark = await image('.png?region=south&theme=dark');
    expect(dark.headers.etag).not.to.equal((await image('.png?region=south')).headers.etag);
    expect(dark.headers.etag).not.to.equal((await image('.png?theme=dark')).headers.etag);
  });

  it('answers invalid values, the defaults written out and unknown names with the defaults\' image', async () => {
    for (const query of [`region=${encodeURIComponent("west' OR 1=1 --")}`, 'region=south&min_amount=-5', 'region=north', 'nothing=1', 'period=2024-13-01..2024-01-02']) {
      const res = await image(`.png?${query}`);
      expect([res.status, res.headers.etag], query).to.deep.equal([200, defaults.headers.etag]);
      expect(res.body.equals(defaults.body), query).to.equal(true);
    }
  });

  it("shares the page's renders and budget: values drawn for the page serve the image on an instance with no budget; others get the defaults' image", async () => {
    const other = await world.instance({ paramRendersPerMinute: 0 });
    expect((await world.get('/sales?region=south&min_amount=90')).status).to.equal(200);
    const drawn = await image('.png?region=south&min_amount=90', other.server);
    expect(drawn.headers.etag).to.equal((await image('.png?region=south&min_amount=90')).headers.etag);
    expect(drawn.headers.etag).not.to.equal(defaults.headers.etag);
    const spent = await image('.png?region=south&min_amount=200', other.server);
    expect([spent.status, spent.headers.etag]).to.deep.equal([200, defaults.headers.etag]);
  });

  it("draws nothing for values on a private dashboard the asker may not see: the page's answer, no render kept", async () => {
    await world.publish('hidden', paramSpec('Hidden'), undefined, { visibility: 'private' });
    const res = await hostRequest(world.server.port, new URL(world.url('/')).host, '/_image/hidden.png?region=south&min_amount=7');
    const page = await world.get('/hidden?region=south&min_amount=8');
    expect(res.status).to.be.oneOf([302, 404]);
    expect(res.status).to.equal(page.status);
    expect(res.headers['content-type'] ?? '').not.to.contain('image/png');
    const client = new pg.Client({ connectionString: world.database.url });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM param_renders r JOIN dashboards d ON d.id = r.dashboard_id WHERE d.slug = 'hidden'`);
      expect(rows[0].n).to.equal(0);
    } finally {
      await client.end();
    }
  });
});
