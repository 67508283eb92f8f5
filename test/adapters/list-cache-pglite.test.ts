import { expect } from 'chai';
import { AccountStore } from '../../application/ports/account-store.js';
import { ListAnswerCache } from '../../shells/koa/mcp/list-answer-cache.js';
import { callToolOverHttp, startFullServer } from '../support/server.js';
import { mintAccessToken } from '../support/tokens.js';

/**
 * The embedded PGlite default remembers list_dashboards answers too: the listing version is a row like any
 * other there (docs/decisions/0046-list-answer-cache.md).
 */
describe('adapters: list_dashboards cache on the embedded database', function () {
  this.timeout(120_000);
  let server: Awaited<ReturnType<typeof startFullServer>>;

  before(async () => {
    server = await startFullServer({});
  });

  after(() => server?.close());

  it('remembers a listing and shows the next publish at once', async () => {
    const container = server.server.app.container;
    const user = await container.get<AccountStore>(AccountStore).createUser({ handle: 'embedded', email: 'embedded@example.com', passwordHash: null, plan: 'free' });
    const token = (await mintAccessToken(container, { userId: user.id })).access_token;
    await callToolOverHttp(server, token, 'publish_dashboard', { path: 'first', body: '<p>1</p>' });
    const cache = container.get(ListAnswerCache);
    const first = await callToolOverHttp(server, token, 'list_dashboards', {});
    expect(cache.size).to.equal(1);
    expect(await callToolOverHttp(server, token, 'list_dashboards', {})).to.deep.equal(first);
    await callToolOverHttp(server, token, 'publish_dashboard', { path: 'second', body: '<p>2</p>' });
    const after = await callToolOverHttp(server, token, 'list_dashboards', {});
    expect(after.text).to.contain('2 dashboard(s):');
    expect(cache.size).to.equal(1);
  });
});
