import { expect } from 'chai';
import { loadSettings } from '../../shells/config.js';
import { createConnectRoutes } from '../../shells/koa/app/connect-routes.js';
import { request } from '../support/http.js';
import { listen, type Listening } from '../support/server.js';

/** The `/connect` routes alone, for a SERVICE_NAME that cannot name a Claude Code plugin. */
describe('connect routes without a plugin', () => {
  let server: Listening;

  before(async () => {
    const routes = createConnectRoutes(loadSettings({ SERVICE_NAME: 'My_Service', DATA_DIR: '/nonexistent' })).routes();
    server = await listen(async (ctx, next) => {
      await routes(ctx as never, async () => {
        ctx.status = 404;
        ctx.body = 'fell through';
      });
      await next();
    });
  });
  after(() => server?.close());

  it('still shows every other client, leaves the plugin out and has no kit to download', async () => {
    const page = await request({ url: `${server.url}/connect` });
    expect(page.status).to.equal(200);
    expect(page.text).to.contain('claude mcp add --transport http My_Service http://localhost:8787/mcp');
    expect(page.text).to.not.contain('client-kit.zip');
    expect(page.text).to.not.contain('mcp__plugin_');
    expect(page.text).to.contain('mcp__My_Service__&lt;tool&gt;');
    expect(page.text).to.not.contain('<h3>As a plugin</h3>');
    const kit = await request({ url: `${server.url}/connect/client-kit.zip` });
    expect(kit.status).to.equal(404);
    expect(kit.text).to.equal('fell through');
  });
});
