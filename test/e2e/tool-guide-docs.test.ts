import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AccountStore } from '../../application/ports/account-store.js';
import { GUIDED_TOOL_NAMES } from '../../shells/client-kit/tool-guide.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { request } from '../support/http.js';
import { aUser } from '../support/mothers.js';
import { startFullServer } from '../support/server.js';
import { mintAccessToken } from '../support/tokens.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The tool names in the first column of docs/architecture.md's table of tools (the one headed `| tool |`). */
function architectureTableTools(): Set<string> {
  const lines = readFileSync(path.join(root, 'docs/architecture.md'), 'utf8').split('\n');
  const head = lines.findIndex((line) => line.startsWith('| tool |'));
  expect(head, 'docs/architecture.md has a table headed "| tool |"').to.be.greaterThan(-1);
  const names = new Set<string>();
  for (const line of lines.slice(head + 2)) {
    if (!line.startsWith('|')) break;
    for (const name of line.split('|')[1]!.match(/[a-z]+(?:_[a-z]+)+|whoami/g) ?? []) names.add(name);
  }
  return names;
}

/**
 * "Adding a tool" in docs/architecture.md ends with the places every tool must be named: each tool the
 * server lists appears in the architecture table and in the client kit's tool guide (the plugin's skill).
 */
describe('e2e: every listed tool is in the docs and the client kit guide', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let server: Awaited<ReturnType<typeof startFullServer>>;
  let listed: string[];

  before(async () => {
    database = await createMigratedTestDatabase();
    server = await startFullServer({ DATABASE_URL: database.url });
    const container = server.server.app.container;
    const user = await aUser(container.get<AccountStore>(AccountStore), { handle: 'ada' });
    const token = (await mintAccessToken(container, { userId: user.id, lock: { kind: 'personal' } })).access_token;
    const res = await request({
      url: `${server.url}/mcp`,
      method: 'POST',
      host: server.hosts.api,
      headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    });
    listed = (res.json().result.tools as Array<{ name: string }>).map((tool) => tool.name);
  });

  after(async () => {
    await server?.close();
    await database?.drop();
  });

  it('names every tool of tools/list in the architecture table', () => {
    expect(listed).to.have.length.greaterThan(0);
    const documented = architectureTableTools();
    expect(listed.filter((name) => !documented.has(name)), 'missing from docs/architecture.md').to.deep.equal([]);
  });

  it('guides the client to exactly the tools of tools/list (shells/client-kit/tool-guide.ts)', () => {
    expect([...GUIDED_TOOL_NAMES].sort()).to.deep.equal([...listed].sort());
  });
});
