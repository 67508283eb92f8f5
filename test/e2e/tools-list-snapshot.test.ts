import { expect } from 'chai';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AccountStore } from '../../application/ports/account-store.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { request } from '../support/http.js';
import { startFullServer } from '../support/server.js';
import { mintAccessToken } from '../support/tokens.js';
import { aUser } from '../support/mothers.js';

/** tools/list as it stood before the tool declarations became DTO classes (issue 31): names, schemas, annotations. */
const FIXTURE = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/tools-list.json');

/**
 * The served tools/list compared whole with the committed fixture, so that any change to a tool's name,
 * title, description, input or output schema, annotations or `_meta` is a deliberate edit of the fixture.
 * `UPDATE_TOOLS_LIST_FIXTURE=1` rewrites it from the running code.
 */
describe('e2e: tools/list matches the committed fixture', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let server: Awaited<ReturnType<typeof startFullServer>>;

  before(async () => {
    database = await createMigratedTestDatabase();
    server = await startFullServer({ DATABASE_URL: database.url });
  });

  after(async () => {
    await server?.close();
    await database?.drop();
  });

  it('lists every tool exactly as the fixture records it', async () => {
    const container = server.server.app.container;
    const user = await aUser(container.get<AccountStore>(AccountStore), { handle: 'lister' });
    const token = (await mintAccessToken(container, { userId: user.id, lock: { kind: 'personal' } })).access_token;
    const res = await request({
      url: `${server.url}/mcp`,
      method: 'POST',
      host: server.hosts.api,
      headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} },
    });
    expect(res.status).to.equal(200);
    const tools = (res.json() as { result: { tools: unknown[] } }).result.tools;
    if (process.env.UPDATE_TOOLS_LIST_FIXTURE === '1') writeFileSync(FIXTURE, `${JSON.stringify(tools, null, 2)}\n`);
    const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Array<{ name: string }>;
    expect(tools.map((t) => (t as { name: string }).name)).to.deep.equal(fixture.map((t) => t.name));
    expect(tools).to.deep.equal(fixture);
  });
});
