import { expect } from 'chai';
import { AccountStore } from '../../../application/ports/account-store.js';
import { createMigratedTestDatabase, type TestDatabase } from '../../support/database.js';
import { request } from '../../support/http.js';
import { startFullServer } from '../../support/server.js';
import { mintAccessToken } from '../../support/tokens.js';
import { aUser } from '../../support/mothers.js';
import { TOOL_NAMES } from '../../../shells/koa/mcp/tools/index.js';

type Server = Awaited<ReturnType<typeof startFullServer>>;
type Schema = { type?: string | string[]; properties?: Record<string, Schema>; items?: Schema; required?: string[]; enum?: unknown[] };

/** Texts of PostgreSQL and its driver that must never reach a client (issue 30, item 10). */
const DATABASE_TEXT = /invalid byte sequence|violates|duplicate key|syntax error at|relation "|index row|value too long|unsupported Unicode|QueryFailedError|SQLSTATE|invalid input syntax|out of range for type/i;

/** The payloads of the attack: a NUL byte, a lone surrogate, and a 1 MB string. */
const PAYLOADS: Array<{ label: string; value: string; refusal: RegExp | null }> = [
  { label: 'a NUL byte', value: 'a\u0000b', refusal: /NUL character/ },
  { label: 'a lone surrogate', value: 'a\ud800b', refusal: /lone surrogate/ },
  { label: 'a 1 MB string', value: 'x'.repeat(1024 * 1024), refusal: null },
];

const typesOf = (schema: Schema) => (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : []);

/**
 * Where a text can go in a tool's arguments, from its inputSchema alone: each string argument, each array
 * of strings (one element), and the string properties of an object argument. A new tool is covered as declared.
 */
function textPlaces(inputSchema: Schema): Array<{ field: string; place(value: string): Record<string, unknown> }> {
  const places: Array<{ field: string; place(value: string): Record<string, unknown> }> = [];
  for (const [name, schema] of Object.entries(inputSchema.properties ?? {})) {
    const types = typesOf(schema);
    if (types.includes('string')) places.push({ field: name, place: (value) => ({ [name]: value }) });
    if (types.includes('array') && typesOf(schema.items ?? {}).includes('string')) places.push({ field: `${name}[0]`, place: (value) => ({ [name]: [value] }) });
    if (types.includes('object')) {
      for (const [inner, innerSchema] of Object.entries(schema.properties ?? {})) {
        if (typesOf(innerSchema).includes('string')) places.push({ field: `${name}.${inner}`, place: (value) => ({ [name]: { [inner]: value } }) });
      }
      places.push({ field: `${name}.title`, place: (value) => ({ [name]: { title: value, panels: [] } }) });
    }
  }
  return places;
}

/** Every string argument of every tool, fuzzed over HTTP against the real server on PostgreSQL (issue 30, item 10). */
describe('security: text arguments with NUL, lone surrogates and 1 MB strings', function () {
  this.timeout(300_000);
  let database: TestDatabase;
  let server: Server;
  let token: string;
  let versionId: string;
  let nextId = 1;

  async function rpc(method: string, params: unknown) {
    const res = await request({
      url: `${server.url}/mcp`,
      method: 'POST',
      host: server.hosts.api,
      headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: { jsonrpc: '2.0', id: nextId++, method, params },
      timeoutMs: 120_000,
    });
    return { status: res.status, text: res.text, body: res.json() };
  }

  before(async () => {
    database = await createMigratedTestDatabase();
    server = await startFullServer({ DATABASE_URL: database.url });
    const accounts = server.server.app.container.get<AccountStore>(AccountStore);
    const user = await aUser(accounts, { handle: 'fuzzer' });
    token = (await mintAccessToken(server.server.app.container, { userId: user.id, lock: { kind: 'personal' } })).access_token;
    const published = await rpc('tools/call', { name: 'publish_dashboard', arguments: { path: 'fuzz', body: '<h1>fuzz</h1>', name: 'Fuzz' } });
    versionId = published.body.result.structuredContent.version_id;
    expect(versionId).to.be.a('string');
  });

  after(async () => {
    await server?.close();
    await database?.drop();
  });

  /** Valid values for the arguments a call needs besides the fuzzed one, so it reaches the store. */
  const filler = (name: string): unknown =>
    ({ path: 'fuzz', slug: 'fuzz', new_slug: 'fuzz-renamed', version_id: versionId, schedule: '0 6 * * *', sql: 'select 1' })[name] ?? 'fuzz';

  it('answers every tool and every text argument with a tool result or a protocol error, never database text', async () => {
    const listed = await rpc('tools/list', {});
    const tools = listed.body.result.tools as Array<{ name: string; inputSchema: Schema }>;
    expect(tools.map((t) => t.name)).to.deep.equal([...TOOL_NAMES]);
    let tried = 0;
    for (const tool of tools) {
      for (const { field, place } of textPlaces(tool.inputSchema)) {
        for (const payload of PAYLOADS) {
          const args: Record<string, unknown> = {};
          for (const required of tool.inputSchema.required ?? []) args[required] = filler(required);
          Object.assign(args, place(payload.value));
          const res = await rpc('tools/call', { name: tool.name, arguments: args });
          const where = `${tool.name} ${field} with ${payload.label}: ${res.text.slice(0, 300)}`;
          tried++;
          expect(res.status, where).to.equal(200);
          expect(res.text, where).to.not.match(DATABASE_TEXT);
          if (res.body.error) {
            expect(res.body.error.code, where).to.equal(-32602);
            continue;
          }
          const result = res.body.result as { content: Array<{ type: string; text: string }>; isError?: boolean };
          expect(result.content[0]!.type, where).to.equal('text');
          if (payload.refusal) {
            expect(result.isError, where).to.equal(true);
            // Refused by the structural checks (an enum, a uuid) or by the text check, naming the field either way.
            expect(result.content[0]!.text, where).to.include(field.split(/[.[]/)[0]!);
          }
        }
      }
    }
    expect(tried).to.be.greaterThan(100);
  });

  it('refuses a NUL byte in update_dashboard name and tags with a tool error naming the field', async () => {
    for (const [args, field] of [
      [{ name: 'bad\u0000name' }, 'name'],
      [{ tags: ['ok', 'bad\u0000tag'] }, 'tags[1]'],
    ] as const) {
      const res = await rpc('tools/call', { name: 'update_dashboard', arguments: { slug: 'fuzz', ...args } });
      expect(res.body.result, res.text).to.deep.equal({ content: [{ type: 'text', text: `${field} must not contain a NUL character (\\u0000)` }], isError: true });
    }
  });
});
