import type { IncomingMessage, ServerResponse } from 'node:http';
import type Koa from 'koa';
import { inLogContext, type LogContext } from '../../logger.js';
import type { RateLimiter } from '../../../application/ports/rate-limiter.js';
import type { Settings } from '../../../application/ports/settings.js';
import type { Principal, TokenVerifier } from '../../../application/ports/token-verifier.js';
import {
  classify,
  errorResponse,
  INTERNAL_ERROR,
  INTERNAL_ERROR_MESSAGE,
  INVALID_REQUEST,
  JsonRpcError,
  PARSE_ERROR,
  resultResponse,
  type Incoming,
  type JsonRpcId,
  type JsonRpcResponse,
} from './jsonrpc.js';
import { McpMethods } from './methods.js';
import { defaultPrompts, PromptCatalog, type PromptDefinition } from './prompts.js';
import type { ResourceSource } from './resources.js';
import { SerializedToolResult, ToolRegistry, type ServedTool, type ToolRegistryObservers } from './tool-registry.js';
import type { Telemetry } from '../../../application/ports/telemetry.js';
import { BodyTooLarge, lendBodyBuffer, readBodyBytes } from '../../http/request-body.js';
import { BodyBuffers } from '../../http/body-buffers.js';
import { parseMessage } from './parse-message.js';

/** pino's calling convention, so a pino logger can be passed as is. */
export interface McpLogger {
  warn(data: object, message: string): void;
  error(data: object, message: string): void;
}

export interface McpEndpointOptions {
  settings: Pick<Settings, 'baseUrl' | 'serviceName' | 'dashboardScheme' | 'dashboardDomain'> &
    Partial<Pick<Settings, 'appUrl' | 'mcpAllowedOrigins' | 'mcpMaxAnswerBytes'>>;
  verifier: TokenVerifier;
  tools: readonly ServedTool[];
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

const MCP_PATHS: ReadonlySet<string> = new Set(['/mcp', '/mcp/']);
const DEFAULT_MAX_BODY_BYTES = 32 * 1024 * 1024;
/** Messages one batch may hold (docs/decisions/0105-batch-caps.md); a longer batch is refused whole, before any member runs. */
export const MAX_BATCH_MEMBERS = 50;
const DEFAULT_MAX_ANSWER_BYTES = 16 * 1024 * 1024;

export const batchTooLong = (members: number) =>
  `Invalid Request: a batch may hold at most ${MAX_BATCH_MEMBERS} messages (got ${members}); send the rest in further requests`;
export const answerTooLarge = (maxBytes: number) =>
  `Answer too large: the answers of this batch passed ${maxBytes} bytes (MCP_MAX_ANSWER_BYTES) at this message. It ran, but its result is left out; ask for it again on its own or in a smaller batch`;

const REPLY_HEAD = Buffer.from('{"jsonrpc":"2.0","id":');
/** A reply whose result was serialised before: its pieces, only the id written now. */
const withId = (id: unknown, tail: Buffer): readonly Buffer[] => [REPLY_HEAD, Buffer.from(JSON.stringify(id)), tail];
const BATCH_OPEN = Buffer.from('[');
const COMMA = Buffer.from(',');
const BATCH_CLOSE = Buffer.from(']');

/**
 * One answer of the endpoint, framework-free: status, headers in the order sent, body (null: none). A
 * body in pieces (a fixed answer's shared bytes after its id) is sent without being copied into one.
 */
export interface McpAnswer {
  status: number;
  headers: Array<[string, string]>;
  body: Buffer | string | readonly Buffer[] | null;
}

/**
 * Answers one request already known to be for /mcp or /mcp/; reads the body itself. With a log context
 * (the node:http front), the work that may log runs in it: all but a fixed answer for a remembered token,
 * which logs nothing (enterLogContext in shells/logger.ts says why that matters). Without one (the Koa
 * front), the caller's context holds.
 */
export type McpHandler = (req: IncomingMessage, context?: LogContext) => Promise<McpAnswer>;

const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * POST /mcp and /mcp/: stateless JSON-RPC over HTTP, always answered with
 * application/json even when the client also accepts text/event-stream.
 *
 * Order of checks: method (405) → bearer token (401, or 503 when the verifier itself fails: authorization
 * fails closed without sending the client into a needless sign-in) → body (400 Parse error). Auth comes
 * before parsing so nothing about the endpoint is answered to an anonymous caller but the sign-in hint.
 *
 * The answer is plain data so that two fronts send the same bytes: the Koa middleware below (the API
 * surface of `createKoaApp`) and `writeMcpAnswer` straight on node:http, which the server uses ahead of
 * Koa for these two paths (docs/decisions/0039-mcp-fast-answers.md).
 */
export function createMcpHandler(options: McpEndpointOptions): McpHandler {
  const endpoint = new McpEndpoint(options);
  // Not an async function, so a token remembered by the verifier costs no extra wait; whatever throws
  // still comes back as a rejected promise, as from the async handler it replaces.
  return (req, context) => {
    try {
      if (req.method !== 'POST') {
        return Promise.resolve({ status: 405, headers: [['allow', 'POST'], ['Content-Type', 'text/plain; charset=utf-8']], body: 'Method Not Allowed' });
      }
      const origin = req.headers.origin;
      // DNS rebinding (MCP transport spec): a page on another site must not reach the endpoint through a browser.
      if (origin !== undefined && !endpoint.originAllowed(origin)) return Promise.resolve(json(403, errorResponse(null, INVALID_REQUEST, FOREIGN_ORIGIN)));
      const token = bearer(req);
      // A token this process verified before is answered for from memory without a wait (the verifier
      // says when it may: docs/decisions/0039-mcp-fast-answers.md); else verify asks the store.
      const remembered = token === null ? undefined : endpoint.verifier.remembered?.(token);
      if (remembered) {
        endpoint.counted('valid');
        return endpoint.respond(req, remembered, context);
      }
      // Verifying asks the store, which may fail and log: in the context, all of it.
      return inLogContext(context, () => endpoint.authenticate(token).then((principal) => ('status' in principal ? principal : endpoint.respond(req, principal))));
    } catch (err) {
      return Promise.reject(err);
    }
  };
}

/**
 * A reply, or its bytes as JSON.stringify would write them, in pieces (fixed answers: the result was
 * serialised once at start-up, only the id is written per request).
 */
type Reply = JsonRpcResponse | readonly Buffer[];
const pieces = (reply: Reply): readonly Buffer[] => (Array.isArray(reply) ? reply : [Buffer.from(JSON.stringify(reply))]);

const send = (status: number, body: McpAnswer['body'] & {}, extra: Array<[string, string]> = []): McpAnswer => ({
  status,
  headers: [...extra, ['cache-control', 'no-store'], ['Content-Type', JSON_TYPE]],
  body,
});
const json = (status: number, body: unknown, extra?: Array<[string, string]>) => send(status, JSON.stringify(body), extra);

const MISSING = 'a bearer access token is required; sign in through the OAuth flow this header points at';

/** The bearer token of the Authorization header, or null when there is none. */
const bearer = (req: IncomingMessage) => /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(req.headers.authorization ?? '')?.[1] ?? null;

/** The endpoint's parts, built once: authentication, the body read, and the JSON-RPC answers. */
class McpEndpoint {
  readonly verifier: TokenVerifier;
  readonly counted: Telemetry['tokenVerification'];
  readonly originAllowed: (origin: string) => boolean;
  private readonly logger?: McpLogger;
  private readonly maxBodyBytes: number;
  private readonly maxAnswerBytes: number;
  private readonly bodyBuffers = new BodyBuffers();
  private readonly methods: McpMethods;
  private readonly wwwAuthenticate: string;

  constructor(options: McpEndpointOptions) {
    const { settings, verifier, logger } = options;
    this.verifier = verifier;
    this.logger = logger;
    this.maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
    this.maxAnswerBytes = settings.mcpMaxAnswerBytes ?? DEFAULT_MAX_ANSWER_BYTES;
    const registry = new ToolRegistry(options.tools, options.rateLimiter, logger, { telemetry: options.telemetry, isUnavailable: options.isUnavailable });
    this.counted = options.telemetry?.tokenVerification.bind(options.telemetry) ?? (() => undefined);
    const prompts = new PromptCatalog(options.prompts ?? defaultPrompts(settings));
    this.methods = new McpMethods(settings, registry, prompts, options.resources);
    this.originAllowed = originCheck(settings);
    this.wwwAuthenticate = `Bearer resource_metadata="${settings.baseUrl}/.well-known/oauth-protected-resource"`;
  }

  private async answer(principal: Principal, incoming: Incoming): Promise<Reply | null> {
    switch (incoming.kind) {
      case 'ignored':
        return null;
      case 'invalid':
        return errorResponse(incoming.id, incoming.code, incoming.message);
      case 'notification':
        // notifications/* need no work in a stateless server (a cancelled request has its own HTTP exchange).
        // Any other method sent without an id still runs, as JSON-RPC says, but its outcome is not reported.
        if (!incoming.method.startsWith('notifications/')) {
          await this.methods.handle(principal, incoming.method, incoming.params).catch((err: unknown) => {
            if (!(err instanceof JsonRpcError)) this.logger?.error({ err, method: incoming.method }, 'MCP notification failed');
          });
        }
        return null;
      case 'request': {
        const tail = this.methods.fixedReplyTail(incoming.method, incoming.params);
        if (tail !== undefined) return withId(incoming.id, tail);
        try {
          const result = await this.methods.handle(principal, incoming.method, incoming.params);
          // A remembered list_dashboards answer: only the id is written, as for the fixed answers above.
          if (result instanceof SerializedToolResult) return withId(incoming.id, result.tail);
          return resultResponse(incoming.id, result);
        } catch (err) {
          if (err instanceof JsonRpcError && err.code !== INTERNAL_ERROR) return errorResponse(incoming.id, err.code, err.message, err.data);
          // Whatever was thrown is logged, never sent: its text may be the database's or a driver's.
          this.logger?.error({ err, method: incoming.method }, 'MCP handler failed');
          return errorResponse(incoming.id, INTERNAL_ERROR, INTERNAL_ERROR_MESSAGE);
        }
      }
    }
  }

  private refuse(description: string): McpAnswer {
    return json(401, { error: 'invalid_token', error_description: description }, [['www-authenticate', this.wwwAuthenticate]]);
  }

  async authenticate(token: string | null): Promise<Principal | McpAnswer> {
    if (token === null) {
      this.counted('missing');
      return this.refuse(MISSING);
    }
    try {
      const principal = await this.verifier.verify(token);
      this.counted(principal ? 'valid' : 'invalid');
      return principal ?? this.refuse('the access token is invalid, expired or revoked; sign in again');
    } catch (err) {
      this.counted('error');
      this.logger?.error({ err }, 'token verification failed; refusing the request');
      return json(503, { error: 'temporarily_unavailable', error_description: 'authorization is temporarily unavailable; retry shortly' }, [['retry-after', '5']]);
    }
  }

  /**
   * The request after its caller is known: body, JSON-RPC, reply. A large body is read into a buffer lent
   * for this request (body-buffers.ts), given back once everything the message started has settled: a
   * publish's bytes are a view of it until the database has them.
   */
  async respond(req: IncomingMessage, principal: Principal, context?: LogContext): Promise<McpAnswer> {
    const lease = lendBodyBuffer(req, this.maxBodyBytes, this.bodyBuffers);
    let bytes: Buffer;
    try {
      bytes = await readBodyBytes(req, this.maxBodyBytes, lease);
    } catch (err) {
      if (err instanceof BodyTooLarge) {
        return json(413, errorResponse(null, INVALID_REQUEST, `413 payload too large: the request body exceeds ${this.maxBodyBytes} bytes`), [['connection', 'close']]);
      }
      throw err;
    }
    const answered = this.answerMessage(principal, bytes, context);
    // Given back when the answer settles either way; this promise is not the one returned, so it rejects nowhere.
    if (lease) void answered.then(lease.release, lease.release);
    return answered;
  }

  private async answerMessage(principal: Principal, bytes: Buffer, context?: LogContext): Promise<McpAnswer> {
    let body: unknown;
    try {
      body = parseMessage(bytes);
    } catch (err) {
      if (err instanceof SyntaxError) return json(400, errorResponse(null, PARSE_ERROR, 'Parse error'));
      throw err;
    }
    if (!Array.isArray(body)) {
      const incoming = classify(body);
      if (incoming.kind === 'request') {
        // A fixed answer goes without another wait (answer() would give the same pieces a tick later), and
        // outside the log context: it logs nothing.
        const tail = this.methods.fixedReplyTail(incoming.method, incoming.params);
        if (tail !== undefined) return send(200, withId(incoming.id, tail));
      }
      return inLogContext(context, () => this.answerOne(principal, incoming));
    }
    return inLogContext(context, () => this.answerBatch(principal, body));
  }

  private async answerBatch(principal: Principal, body: unknown[]): Promise<McpAnswer> {
    if (body.length === 0) return json(400, errorResponse(null, INVALID_REQUEST, 'Invalid Request: empty batch'));
    if (body.length > MAX_BATCH_MEMBERS) return json(400, errorResponse(null, INVALID_REQUEST, batchTooLong(body.length)));
    // Members run concurrently; the reply keeps the request order and leaves notifications out. Every
    // member settles before the first failure is passed on: the body's buffer is lent until then.
    const settled = await Promise.allSettled(body.map((member) => this.answer(principal, classify(member))));
    const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failed) throw failed.reason;
    const replies = settled
      .map((outcome) => (outcome as PromiseFulfilledResult<Reply | null>).value)
      .filter((reply): reply is Reply => reply !== null);
    if (replies.length === 0) return { status: 204, headers: [], body: null };
    return send(200, this.cappedBatch(replies));
  }

  /**
   * The batch reply's pieces, at most maxAnswerBytes: the first reply always goes in full (an answer on its
   * own would), and every reply after the one that passes the cap becomes an error saying so, under its id.
   */
  private cappedBatch(replies: Reply[]): Buffer[] {
    const parts: Buffer[] = [];
    let bytes = 2;
    let over = false;
    for (const reply of replies) {
      let replyPieces = pieces(reply);
      const size = replyPieces.reduce((sum, piece) => sum + piece.length, 0);
      if (!over && parts.length > 0 && bytes + size + 1 > this.maxAnswerBytes) over = true;
      if (over) replyPieces = pieces(errorResponse(idOf(reply), INVALID_REQUEST, answerTooLarge(this.maxAnswerBytes)));
      for (const piece of replyPieces) bytes += piece.length;
      parts.push(parts.length === 0 ? BATCH_OPEN : COMMA, ...replyPieces);
      bytes += 1;
    }
    parts.push(BATCH_CLOSE);
    return parts;
  }

  private async answerOne(principal: Principal, incoming: Incoming): Promise<McpAnswer> {
    const reply = await this.answer(principal, incoming);
    // 202 with no body: what the streamable HTTP transport expects for a lone notification.
    if (!reply) return { status: 202, headers: [], body: null };
    return send(incoming.kind === 'invalid' && incoming.code === INVALID_REQUEST ? 400 : 200, Array.isArray(reply) ? reply : JSON.stringify(reply));
  }
}

/** The id a reply answers: its field, or the JSON written after the fixed head of a reply in pieces. */
function idOf(reply: JsonRpcResponse | readonly Buffer[]): JsonRpcId {
  return Array.isArray(reply) ? (JSON.parse(reply[1]!.toString('utf8')) as JsonRpcId) : (reply as JsonRpcResponse).id;
}

/** The 403 answer's message for a request from a browser origin that is not allowed. */
export const FOREIGN_ORIGIN = '403 forbidden: requests from this Origin are not accepted; the operator can allow an origin in MCP_ALLOWED_ORIGINS';

/**
 * Whether an Origin header names the service's own origins (BASE_URL, APP_URL) or one of
 * MCP_ALLOWED_ORIGINS. Browsers send origins in lower case; one set lookup per request that has one.
 */
function originCheck(settings: McpEndpointOptions['settings']): (origin: string) => boolean {
  const allowed = new Set<string>(settings.mcpAllowedOrigins ?? []);
  for (const url of [settings.baseUrl, settings.appUrl]) if (url) allowed.add(new URL(url).origin);
  return (origin) => allowed.has(origin) || allowed.has(origin.toLowerCase());
}

/** The endpoint as Koa middleware: answers /mcp and /mcp/, passes other paths to `next` (the API surface answers 404). */
export function mcpMiddleware(handler: McpHandler): Koa.Middleware {
  return async (ctx, next) => {
    if (!MCP_PATHS.has(ctx.path)) return next();
    const { status, headers, body } = await handler(ctx.req);
    ctx.status = status;
    for (const [name, value] of headers) ctx.set(name, value);
    // Koa writes Content-Length for a body and, with none, sends 202 as an empty body and 204 bare.
    if (body !== null) ctx.body = Array.isArray(body) ? Buffer.concat(body) : body;
    else if (status !== 204) {
      ctx.body = '';
      ctx.remove('content-type');
    }
  };
}

/** Whether a request's path (its URL without the query) is the endpoint's. */
export function isMcpPath(url: string | undefined): boolean {
  const value = url ?? '/';
  const query = value.indexOf('?');
  return MCP_PATHS.has(query < 0 ? value : value.slice(0, query));
}

/**
 * Writes an answer on node:http with the bytes Koa's middleware above sends: the same header names in
 * the same order, Content-Length last, none for 204 (HEAD bodies are left out by node:http as by Koa).
 */
export function writeMcpAnswer(res: ServerResponse, { status, headers, body }: McpAnswer, head: readonly string[] = []): void {
  const list: string[] = [...head];
  for (const [name, value] of headers) list.push(name, value);
  const chunks: ReadonlyArray<Buffer | string> = body === null ? [] : Array.isArray(body) ? body : [body as Buffer | string];
  let length = 0;
  for (const chunk of chunks) length += Buffer.byteLength(chunk);
  if (body !== null || status !== 204) list.push('Content-Length', String(length));
  // Corked, the head and every piece leave in one write to the socket.
  res.cork();
  res.writeHead(status, list);
  for (const chunk of chunks) res.write(chunk);
  res.end();
  res.uncork();
}

/**
 * The endpoint on node:http: answers and returns true for /mcp and /mcp/, else returns false having
 * touched nothing. A failure is answered as Koa answers one (its headers dropped, 500 with Koa's text)
 * and reported once through `failed`, as the Koa app's error event reports its own.
 */
export function mcpFront(
  handler: McpHandler,
  failed: (err: unknown, path: string, context?: LogContext) => void,
): (req: IncomingMessage, res: ServerResponse, head?: readonly string[], context?: LogContext) => boolean {
  return (req, res, head = [], context) => {
    if (!isMcpPath(req.url)) return false;
    handler(req, context).then(
      (answer) => writeMcpAnswer(res, answer, head),
      (err: unknown) => {
        failed(err, (req.url ?? '').split('?', 1)[0]!, context);
        if (res.headersSent || !res.writable) return;
        for (const name of res.getHeaderNames()) res.removeHeader(name);
        res.writeHead(500, ['Content-Type', 'text/plain; charset=utf-8', 'Content-Length', '21']);
        res.end('Internal Server Error');
      },
    );
    return true;
  };
}
