import { expect } from 'chai';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { MemoryRateLimiter } from '../../adapters/memory/memory-rate-limiter.js';
import type { ServedTool } from '../../shells/koa/mcp/tool-registry.js';
import { startMcpTestServer, TOKENS, type McpTestServer } from './mcp-transport-fixtures.js';

/** Arguments that make each stub tool succeed, so every listed tool gets called. */
const HAPPY_ARGUMENTS: Record<string, Record<string, unknown>> = {
  echo: { text: 'hello', times: 2 },
  whoami: {},
  label_version: { name: null },
  slow: { ms: 10, label: 'sdk' },
  publish_dashboard: { path: 'sdk-test' },
};
/** Stub tools whose whole purpose is to fail; they are called in the error tests instead. */
const FAILING_TOOLS = new Set(['refuse', 'crash', 'lying']);

/** A tool whose structuredContent breaks its own outputSchema: proves the SDK really validates. */
class NoInput {}
const lyingTool: ServedTool = {
  name: 'lying',
  title: 'Lying',
  description: 'Returns structuredContent that violates its outputSchema.',
  input: NoInput,
  outputSchema: { type: 'object', properties: { count: { type: 'integer' } }, required: ['count'] },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
  async call() {
    return { content: [{ type: 'text', text: 'count is "many"' }], structuredContent: { count: 'many' } };
  },
};

function connectClient(server: McpTestServer, options: { revision?: string; token?: string } = {}) {
  const transport = new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
    requestInit: { headers: { Authorization: `Bearer ${options.token ?? TOKENS.alice}` } },
  });
  if (options.revision) {
    // The SDK always asks for its newest revision; rewriting the request is how a client of an older
    // revision is simulated with the same code.
    const send = transport.send.bind(transport);
    transport.send = (message, sendOptions) => {
      if ('method' in message && message.method === 'initialize') {
        message = { ...message, params: { ...message.params, protocolVersion: options.revision } };
      }
      return send(message, sendOptions);
    };
  }
  const client = new Client({ name: 'dashpub-sdk-test', version: '1.0.0' });
  return { client, transport, connected: client.connect(transport) };
}

describe('MCP endpoint with the official SDK client', () => {
  let server: McpTestServer;
  before(async () => {
    server = await startMcpTestServer({ rateLimiter: new MemoryRateLimiter({ now: () => new Date() }), extraTools: [lyingTool] });
  });
  after(async () => {
    await server.close();
  });

  for (const [requested, negotiated] of [
    [undefined, '2025-06-18'],
    ['2025-06-18', '2025-06-18'],
    ['2024-11-05', '2024-11-05'],
  ] as const) {
    describe(`asking for ${requested ?? "the SDK's newest revision"}`, () => {
      let client: Client;
      let transport: StreamableHTTPClientTransport;
      before(async () => {
        const connection = connectClient(server, { revision: requested });
        await connection.connected;
        client = connection.client;
        transport = connection.transport;
      });
      after(async () => {
        await client.close();
      });

      it(`negotiates ${negotiated} and sees the server identity and capabilities`, () => {
        expect(transport.protocolVersion).to.equal(negotiated);
        expect(client.getServerVersion()).to.deep.equal({ name: 'service', version: '0.6.0' });
        expect(client.getServerCapabilities()).to.deep.equal({
          tools: { listChanged: false },
          prompts: { listChanged: false },
          resources: { listChanged: false },
        });
        expect(client.getInstructions()).to.contain('BEGIN_JSON');
      });

      it('lists and calls every tool; each structuredContent satisfies its outputSchema', async () => {
        const { tools } = await client.listTools();
        const validator = new AjvJsonSchemaValidator();
        const called: string[] = [];
        for (const tool of tools) {
          if (FAILING_TOOLS.has(tool.name)) continue;
          const args = HAPPY_ARGUMENTS[tool.name];
          expect(args, `happy arguments for ${tool.name}`).to.not.equal(undefined);
          // callTool validates structuredContent against the listed outputSchema itself and throws otherwise.
          const result = await client.callTool({ name: tool.name, arguments: args });
          expect(result.isError, tool.name).to.not.equal(true);
          expect((result.content as Array<{ type: string }>)[0]!.type).to.equal('text');
          if (tool.outputSchema) {
            expect(result.structuredContent, `${tool.name} returns structuredContent`).to.be.an('object');
            const verdict = validator.getValidator(tool.outputSchema as never)(result.structuredContent);
            expect(verdict.valid, `${tool.name}: ${verdict.errorMessage}`).to.equal(true);
          }
          called.push(tool.name);
        }
        expect(called).to.include.members(['echo', 'whoami', 'slow', 'publish_dashboard']);
      });

      it('lists and fills prompts, lists templates and resources, reads a resource', async () => {
        const { prompts } = await client.listPrompts();
        expect(prompts.map((p) => p.name)).to.deep.equal(['publish_static_dashboard', 'refreshable_dashboard', 'audit_my_dashboards']);
        const prompt = await client.getPrompt({ name: 'publish_static_dashboard', arguments: { topic: 'weather' } });
        expect(prompt.messages[0]!.content).to.deep.include({ type: 'text' });
        const { resourceTemplates } = await client.listResourceTemplates();
        expect(resourceTemplates.map((t) => t.uriTemplate)).to.deep.equal(['service://{handle}/{slug}']);
        const page = await client.listResources();
        expect(page.resources).to.have.length(2);
        expect(page.nextCursor).to.equal('page-2');
        const read = await client.readResource({ uri: 'service://alice/alpha' });
        expect(read.contents).to.deep.equal([{ uri: 'service://alice/alpha', mimeType: 'text/html', text: '<h1>alpha</h1>' }]);
        expect(await client.ping()).to.deep.equal({});
      });
    });
  }

  describe('errors as the SDK sees them', () => {
    let client: Client;
    before(async () => {
      const connection = connectClient(server);
      await connection.connected;
      client = connection.client;
    });
    after(async () => {
      await client.close();
    });

    it('rejects structuredContent that breaks the outputSchema (so the happy-path validation is real)', async () => {
      await client.listTools();
      const error = await client.callTool({ name: 'lying', arguments: {} }).then(
        () => null,
        (err: unknown) => err,
      );
      expect(error).to.be.instanceOf(McpError);
      expect((error as McpError).message).to.match(/structured content does not match/i);
    });

    it('gets a refusal as an isError result', async () => {
      const result = await client.callTool({ name: 'refuse', arguments: { slug: 'x' } });
      expect(result).to.deep.include({ isError: true, content: [{ type: 'text', text: 'No dashboard named "x" in your account' }] });
    });

    it('gets protocol errors as McpError with the spec codes', async () => {
      const codeOf = (work: Promise<unknown>) =>
        work.then(
          () => null,
          (err: unknown) => (err instanceof McpError ? err.code : err),
        );
      expect(await codeOf(client.callTool({ name: 'crash', arguments: {} }))).to.equal(-32000);
      expect(await codeOf(client.callTool({ name: 'no_such_tool', arguments: {} }))).to.equal(-32602);
      expect(await codeOf(client.readResource({ uri: 'service://alice/missing' }))).to.equal(-32002);
      expect(await codeOf(client.readResource({ uri: 'nope' }))).to.equal(-32602);
      expect(await codeOf(client.complete({ ref: { type: 'ref/prompt', name: 'audit_my_dashboards' }, argument: { name: 'x', value: '' } }))).to.equal(-32601);
    });
  });

  it('cannot connect without a valid token', async () => {
    const { client, connected } = connectClient(server, { token: 'wrong' });
    const error = await connected.then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).to.be.instanceOf(Error);
    expect(String(error)).to.match(/invalid_token/);
    await client.close();
  });
});
