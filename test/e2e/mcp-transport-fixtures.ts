/**
 * Test doubles for the MCP endpoint suites: a token verifier, stub tools and a stub resource source.
 * They exercise the transport and the registry without the dashboard use cases.
 */
import Koa from 'koa';
import { DomainError } from '../../domain/errors.js';
import type { RateLimiter } from '../../application/ports/rate-limiter.js';
import type { Settings } from '../../application/ports/settings.js';
import type { Principal, TokenVerifier } from '../../application/ports/token-verifier.js';
import { createApiSurface } from '../../shells/koa/api/api-surface.js';
import { createMcpHandler, mcpFront, mcpMiddleware, type McpLogger } from '../../shells/koa/mcp/endpoint.js';
import type { ResourceSource } from '../../shells/koa/mcp/resources.js';
import type { ServedTool } from '../../shells/koa/mcp/tool-registry.js';
import { IntegerIn, OneOf, Text, TextList, Uuid, Workspace } from '../../shells/koa/mcp/tools/arguments.js';
import { listen, listenOn, type Listening } from '../support/server.js';
import { loadSettings } from '../../shells/config.js';
import { aPrincipal } from '../support/mothers.js';

export const TOKENS = {
  alice: 'token-alice',
  bob: 'token-bob',
  /** Makes the fake verifier throw, as an unreachable token store would. */
  broken: 'token-broken',
};

export const principalOf = (userId: string): Principal => aPrincipal(userId);

export class FakeTokenVerifier implements TokenVerifier {
  calls = 0;
  async verify(token: string): Promise<Principal | null> {
    this.calls++;
    if (token === TOKENS.broken) throw new Error('token store unreachable');
    if (token === TOKENS.alice) return principalOf('alice-id');
    if (token === TOKENS.bob) return principalOf('bob-id');
    return null;
  }
}

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

class EchoInput {
  @Text()
  text!: string;

  @IntegerIn(1, 5, { optional: true })
  times?: number | null;

  @TextList({ optional: true, nullable: true })
  tags?: string[] | null;

  @OneOf(['loud', 'quiet'], { optional: true })
  mode?: string | null;

  @Uuid({ optional: true })
  version_id?: string | null;

  @Workspace()
  workspace?: unknown;
}

class NoInput {}

class LabelInput {
  @Text({ nullable: true })
  name!: string | null;
}

class SlugInput {
  @Text({ optional: true })
  slug?: string | null;
}

class SlowInput {
  @IntegerIn(0, 5000, { optional: true })
  ms?: number | null;

  @Text({ optional: true })
  label?: string | null;
}

class PathInput {
  @Text()
  path!: string;
}

/** Ties a stub's handler to its input class. */
export const stub = <I extends object>(tool: ServedTool<I>): ServedTool => tool;

export interface StubTools {
  tools: ServedTool[];
  /** How many times each tool body actually ran. */
  runs: Record<string, number>;
}

export function stubTools(): StubTools {
  const runs: Record<string, number> = {};
  const ran = (name: string) => (runs[name] = (runs[name] ?? 0) + 1);
  const tools = [
    stub({
      name: 'echo',
      title: 'Echo',
      description: 'Repeats text.',
      input: EchoInput,
      outputSchema: {
        type: 'object',
        properties: { text: { type: 'string' }, times: { type: 'integer' }, user: { type: 'string' } },
        required: ['text', 'times', 'user'],
      },
      annotations: READ,
      async call(principal, args) {
        ran('echo');
        const times = args.times ?? 1;
        const text = Array.from({ length: times }, () => args.text).join(' ');
        const payload = { text, times, user: principal.userId };
        return { content: [{ type: 'text', text: `${text}\nBEGIN_JSON\n${JSON.stringify(payload)}\nEND_JSON` }], structuredContent: payload };
      },
    }),
    stub({
      name: 'whoami',
      title: 'Who am I',
      description: 'The caller.',
      input: NoInput,
      annotations: READ,
      async call(principal) {
        ran('whoami');
        return { content: [{ type: 'text', text: `You are ${principal.userId}.` }] };
      },
    }),
    stub({
      name: 'label_version',
      title: 'Label a version',
      description: 'A required argument where null means "remove".',
      input: LabelInput,
      annotations: READ,
      async call(_principal, args) {
        ran('label_version');
        return { content: [{ type: 'text', text: args.name === null ? 'label removed' : `labelled ${String(args.name)}` }] };
      },
    }),
    stub({
      name: 'refuse',
      title: 'Refuse',
      description: 'Always refuses with a domain error.',
      input: SlugInput,
      annotations: READ,
      async call(_principal, args) {
        ran('refuse');
        throw new DomainError('not_found', `No dashboard named "${String(args.slug)}" in your account`);
      },
    }),
    stub({
      name: 'crash',
      title: 'Crash',
      description: 'Throws an unexpected error.',
      input: NoInput,
      annotations: READ,
      async call() {
        ran('crash');
        throw new Error('database exploded');
      },
    }),
    stub({
      name: 'slow',
      title: 'Slow',
      description: 'Answers after a delay.',
      input: SlowInput,
      annotations: READ,
      async call(_principal, args) {
        ran('slow');
        await sleep(args.ms ?? 200);
        return { content: [{ type: 'text', text: `done ${String(args.label)}` }] };
      },
    }),
    stub({
      // Named like the real tool so the registry applies its 60-per-minute ceiling.
      name: 'publish_dashboard',
      title: 'Publish (stub)',
      description: 'Counts publishes.',
      input: PathInput,
      annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
      async call(principal, args) {
        const n = ran('publish_dashboard');
        return { content: [{ type: 'text', text: `Published ${String(args.path)} for ${principal.userId} (#${n})` }] };
      },
    }),
  ];
  return { tools, runs };
}

/** Dashboards "alice" owns, as the stub resource source serves them: three, listed two per page. */
export const stubResources: ResourceSource = {
  async list(_principal, cursor) {
    const all = ['alpha', 'beta', 'gamma'];
    if (cursor !== undefined && cursor !== 'page-2') throw new DomainError('invalid_argument', 'cursor is not valid');
    const start = cursor === 'page-2' ? 2 : 0;
    const resources = all.slice(start, start + 2).map((slug) => ({ uri: `service://alice/${slug}`, name: slug, mimeType: 'text/html' }));
    return { resources, nextCursor: start === 0 ? 'page-2' : null };
  },
  async read(_principal, ref) {
    if (ref.slug === 'broken') throw new Error('storage offline');
    if (ref.slug === 'unavailable') throw new DomainError('unavailable', 'storage offline');
    if (ref.handle !== 'alice' || !['alpha', 'beta', 'gamma'].includes(ref.slug)) {
      throw new DomainError('not_found', `No dashboard named "${ref.slug}" in your account`);
    }
    return { uri: ref.uri, mimeType: 'text/html', text: `<h1>${ref.slug}</h1>` };
  },
  async image(_principal, ref) {
    throw new DomainError('not_found', `No dashboard named "${ref.slug}" in your account`);
  },
};

export class RecordingLogger implements McpLogger {
  errors: Array<{ data: object; message: string }> = [];
  warnings: Array<{ data: object; message: string }> = [];
  warn(data: object, message: string) {
    this.warnings.push({ data, message });
  }
  error(data: object, message: string) {
    this.errors.push({ data, message });
  }
}

export interface McpTestServer extends Listening {
  settings: Settings;
  verifier: FakeTokenVerifier;
  runs: Record<string, number>;
  logger: RecordingLogger;
}

/** How a request reaches the endpoint: through the Koa API surface, or on node:http ahead of it as the server does. */
export type McpFront = 'koa' | 'node';
export const MCP_FRONTS: readonly McpFront[] = ['koa', 'node'];

/** The API surface with the MCP endpoint over the doubles, served on 127.0.0.1. */
export async function startMcpTestServer(options: {
  rateLimiter: RateLimiter;
  env?: NodeJS.ProcessEnv;
  maxBodyBytes?: number;
  /** Added to the stubs, in place of a stub of the same name. */
  extraTools?: ServedTool[];
  front?: McpFront;
}): Promise<McpTestServer> {
  const settings = loadSettings({ PORT: '8787', ...options.env });
  const verifier = new FakeTokenVerifier();
  const { tools, runs } = stubTools();
  const logger = new RecordingLogger();
  const mcp = createMcpHandler({
    settings,
    verifier,
    tools: [...tools.filter((tool) => !options.extraTools?.some((extra) => extra.name === tool.name)), ...(options.extraTools ?? [])],
    resources: stubResources,
    rateLimiter: options.rateLimiter,
    logger,
    maxBodyBytes: options.maxBodyBytes,
  });
  const extra = async (ctx: import('koa').Context, next: () => Promise<void>) => {
    if (ctx.path !== '/extra-route') return next();
    ctx.body = 'extra';
  };
  const surface = createApiSurface({ mcp: mcpMiddleware(mcp), extra });
  let server: Listening;
  if (options.front === 'node') {
    const callback = new Koa().use(surface).callback();
    const direct = mcpFront(mcp, (err) => logger.error({ err }, 'request failed'));
    server = await listenOn((req, res) => {
      if (!direct(req, res)) void callback(req, res);
    });
  } else server = await listen(surface);
  return { ...server, settings, verifier, runs, logger };
}
