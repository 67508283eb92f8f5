import type Koa from 'koa';
import type { RateLimiter } from '../../../application/ports/rate-limiter.js';
import type { Settings } from '../../../application/ports/settings.js';
import type { Principal, TokenVerifier } from '../../../application/ports/token-verifier.js';
import {
  classify,
  errorResponse,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  JsonRpcError,
  PARSE_ERROR,
  resultResponse,
  type Incoming,
  type JsonRpcResponse,
} from './jsonrpc.js';
import { McpMethods } from './methods.js';
import { defaultPrompts, PromptCatalog, type PromptDefinition } from './prompts.js';
import type { ResourceSource } from './resources.js';
import { SerializedToolResult, ToolRegistry, type ToolDefinition, type ToolRegistryObservers } from './tool-registry.js';
import type { Telemetry } from '../../../application/ports/telemetry.js';
import { BodyTooLarge, readBody } from '../request-body.js';

/** pino's calling convention, so a pino logger can be passed as is. */
export interface McpLogger {
  warn(data: object, message: string): void;
  error(data: object, message: string): void;
}

export interface McpEndpointOptions {
  settings: Pick<Settings, 'baseUrl' | 'serviceName' | 'dashboardScheme' | 'dashboardDomain'>;
  verifier: TokenVerifier;
  tools: ToolDefinition[];
  /** Defaults to the spec's three prompts. */
  prompts?: PromptDefinition[];
  resources: ResourceSource;
  rateLimiter: RateLimiter;
  logger?: McpLogger;
  /** Largest request body read, in bytes. Default 32 MiB: a 5 MiB upload survives base64 and JSON escaping. */
  maxBodyBytes?: number;
  /** Token checks and tool calls are counted here. */
  telemetry?: Pick<Telemetry, 'toolCall' | 'tokenVerification'>;
  isUnavailable?: ToolRegistryObservers['isUnavailable'];
}

export const MCP_PATHS: ReadonlySet<string> = new Set(['/mcp', '/mcp/']);
const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;

const REPLY_HEAD = Buffer.from('{"jsonrpc":"2.0","id":');
const BATCH_OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const BATCH_CLOSE = Buffer.from(']');

/**
 * POST /mcp and /mcp/: stateless JSON-RPC over HTTP, always answered with
 * application/json even when the client also accepts text/event-stream. Other paths fall through to
 * `next` (the API surface answers 404).
 *
 * Order of checks: method (405) → bearer token (401, or 503 when the verifier itself fails: authorization
 * fails closed without sending the client into a needless sign-in) → body (400 Parse error). Auth comes
 * before parsing so nothing about the endpoint is answered to an anonymous caller but the sign-in hint.
 */
export function createMcpEndpoint(options: McpEndpointOptions): Koa.Middleware {
  const { settings, verifier, logger } = options;
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const registry = new ToolRegistry(options.tools, options.rateLimiter, logger, { telemetry: options.telemetry, isUnavailable: options.isUnavailable });
  const counted = options.telemetry?.tokenVerification.bind(options.telemetry) ?? (() => undefined);
  const prompts = new PromptCatalog(options.prompts ?? defaultPrompts(settings));
  const methods = new McpMethods(settings, registry, prompts, options.resources);
  const wwwAuthenticate = `Bearer resource_metadata="${settings.baseUrl}/.well-known/oauth-protected-resource"`;

  /**
   * A reply, or its bytes as JSON.stringify would write it (fixed answers: the result was serialised
   * once at start-up, only the id is written per request).
   */
  type Reply = JsonRpcResponse | Buffer;
  const serialize = (reply: Reply) => (Buffer.isBuffer(reply) ? reply : Buffer.from(JSON.stringify(reply)));

  async function answer(principal: Principal, incoming: Incoming): Promise<Reply | null> {
    switch (incoming.kind) {
      case 'ignored':
        return null;
      case 'invalid':
        return errorResponse(incoming.id, incoming.code, incoming.message);
      case 'notification':
        // notifications/* need no work in a stateless server (a cancelled request has its own HTTP exchange).
        // Any other method sent without an id still runs, as JSON-RPC says, but its outcome is not reported.
        if (!incoming.method.startsWith('notifications/')) {
          await methods.handle(principal, incoming.method, incoming.params).catch((err: unknown) => {
            if (!(err instanceof JsonRpcError)) logger?.error({ err, method: incoming.method }, 'MCP notification failed');
          });
        }
        return null;
      case 'request': {
        const tail = methods.fixedReplyTail(incoming.method, incoming.params);
        if (tail !== undefined) return Buffer.concat([REPLY_HEAD, Buffer.from(JSON.stringify(incoming.id)), tail]);
        try {
          const result = await methods.handle(principal, incoming.method, incoming.params);
          // A remembered list_dashboards answer: only the id is written, as for the fixed answers above.
          if (result instanceof SerializedToolResult) return Buffer.concat([REPLY_HEAD, Buffer.from(JSON.stringify(incoming.id)), result.tail]);
          return resultResponse(incoming.id, result);
        } catch (err) {
          if (err instanceof JsonRpcError) {
            if (err.code === INTERNAL_ERROR) logger?.error({ method: incoming.method, message: err.message }, 'MCP handler failed');
            return errorResponse(incoming.id, err.code, err.message, err.data);
          }
          logger?.error({ err, method: incoming.method }, 'MCP handler failed');
          const message = err instanceof Error ? err.message : String(err);
          return errorResponse(incoming.id, INTERNAL_ERROR, `Internal error: ${message}`);
        }
      }
    }
  }

  const send = (ctx: Koa.Context, status: number, text: string | Buffer) => {
    ctx.status = status;
    ctx.set('cache-control', 'no-store');
    ctx.type = 'application/json';
    ctx.body = text;
  };
  const json = (ctx: Koa.Context, status: number, body: unknown) => send(ctx, status, JSON.stringify(body));

  return async (ctx, next) => {
    if (!MCP_PATHS.has(ctx.path)) return next();

    if (ctx.method !== 'POST') {
      ctx.status = 405;
      ctx.set('allow', 'POST');
      ctx.type = 'text/plain';
      ctx.body = 'Method Not Allowed';
      return;
    }

    const principal = await authenticate(ctx);
    if (!principal) return;

    let text: string;
    try {
      text = await readBody(ctx.req, maxBodyBytes);
    } catch (err) {
      if (!(err instanceof BodyTooLarge)) throw err;
      ctx.set('connection', 'close');
      return json(ctx, 413, errorResponse(null, INVALID_REQUEST, `413 payload too large: the request body exceeds ${maxBodyBytes} bytes`));
    }
    let body: unknown;
    try {
      body = JSON.parse(text);
      text = ''; // the parsed copy is all that is needed from here on
    } catch {
      return json(ctx, 400, errorResponse(null, PARSE_ERROR, 'Parse error'));
    }

    if (Array.isArray(body)) {
      if (body.length === 0) return json(ctx, 400, errorResponse(null, INVALID_REQUEST, 'Invalid Request: empty batch'));
      // Members run concurrently; the reply keeps the request order and leaves notifications out.
      const replies = (await Promise.all(body.map((member) => answer(principal, classify(member))))).filter(
        (reply): reply is Reply => reply !== null,
      );
      if (replies.length === 0) {
        ctx.status = 204;
        return;
      }
      const parts: Buffer[] = [];
      for (const reply of replies) parts.push(parts.length === 0 ? BATCH_OPEN : COMMA, serialize(reply));
      parts.push(BATCH_CLOSE);
      return send(ctx, 200, Buffer.concat(parts));
    }

    const incoming = classify(body);
    const reply = await answer(principal, incoming);
    if (!reply) {
      // 202 with no body: what the streamable HTTP transport expects for a lone notification.
      ctx.status = 202;
      ctx.body = '';
      ctx.remove('content-type');
      return;
    }
    send(ctx, incoming.kind === 'invalid' && incoming.code === INVALID_REQUEST ? 400 : 200, Buffer.isBuffer(reply) ? reply : JSON.stringify(reply));
  };

  async function authenticate(ctx: Koa.Context): Promise<Principal | null> {
    const refuse = (description: string) => {
      ctx.set('www-authenticate', wwwAuthenticate);
      json(ctx, 401, { error: 'invalid_token', error_description: description });
      return null;
    };
    const match = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(ctx.get('authorization'));
    if (!match) {
      counted('missing');
      return refuse('a bearer access token is required; sign in through the OAuth flow this header points at');
    }
    try {
      const principal = await verifier.verify(match[1]!);
      counted(principal ? 'valid' : 'invalid');
      return principal ?? refuse('the access token is invalid, expired or revoked; sign in again');
    } catch (err) {
      counted('error');
      logger?.error({ err }, 'token verification failed; refusing the request');
      ctx.set('retry-after', '5');
      json(ctx, 503, { error: 'temporarily_unavailable', error_description: 'authorization is temporarily unavailable; retry shortly' });
      return null;
    }
  }
}
