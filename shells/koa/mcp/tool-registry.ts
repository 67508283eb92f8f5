import { isDomainError } from '../../../domain/errors.js';
import { RATE_LIMITS, RATE_WINDOW_SECONDS, toolRateLimited } from '../../../domain/rate-limits.js';
import type { RateLimiter } from '../../../application/ports/rate-limiter.js';
import type { Principal } from '../../../application/ports/token-verifier.js';
import { checkText, declareInput, readArguments, type InputDeclaration, type JsonSchema } from './tools/arguments.js';
import type { ServedTool, ToolAnnotations, ToolResult } from './tools/definition.js';
import { invalidParams, JsonRpcError } from './jsonrpc.js';
import type { Telemetry, ToolOutcome } from '../../../application/ports/telemetry.js';

export type { ServedTool, ToolResult } from './tools/definition.js';

/**
 * A tool result kept as the text JSON.stringify wrote for it (a remembered `list_dashboards` answer,
 * shells/koa/mcp/list-answer-cache.ts): the endpoint writes `tail` after the request id instead of
 * serialising the result again. To anything else it reads as the result it was made from (parsed on first
 * use; `toJSON` gives JSON.stringify the same object, so the bytes are the same either way).
 */
export class SerializedToolResult implements ToolResult {
  /** `,"result":<json>}` in UTF-8: the end of the JSON-RPC reply, after `{"jsonrpc":"2.0","id":<id>`. */
  readonly tail: Buffer;
  readonly isError?: boolean;
  private parsed: ToolResult | undefined;

  private constructor(json: string, isError: boolean | undefined) {
    this.tail = Buffer.from(`,"result":${json}}`);
    if (isError !== undefined) this.isError = isError;
  }

  static of(result: ToolResult): SerializedToolResult {
    return result instanceof SerializedToolResult ? result : new SerializedToolResult(JSON.stringify(result), result.isError);
  }

  get content(): ToolResult['content'] {
    return this.toJSON().content;
  }

  get structuredContent(): ToolResult['structuredContent'] {
    return this.toJSON().structuredContent;
  }

  toJSON(): ToolResult {
    this.parsed ??= JSON.parse(this.tail.subarray(10, this.tail.length - 1).toString('utf8')) as ToolResult;
    return this.parsed;
  }
}

/** What tools/list shows of a tool. */
export interface ToolDescriptor {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema?: JsonSchema;
  annotations: ToolAnnotations;
  _meta?: Record<string, unknown>;
}

export interface ToolRegistryLogger {
  warn(data: object, message: string): void;
}

/** Operability hooks of the registry (all optional). */
export interface ToolRegistryObservers {
  telemetry?: Pick<Telemetry, 'toolCall'>;
  /**
   * True for a failure of the service's own storage being away (the database restarting, say): the
   * call gets an `isError` result asking to retry shortly instead of a protocol error.
   */
  isUnavailable?: (err: unknown) => boolean;
}

/** The `isError` text of a call that failed because the service's database was briefly unreachable. */
export const SERVICE_UNAVAILABLE_TEXT = 'The service is temporarily unavailable (its database is not answering). Nothing was changed by this call unless a later read shows otherwise; retry in a few seconds.';

export const errorResult = (text: string): ToolResult => ({ content: [{ type: 'text', text }], isError: true });

/** Per-user ceilings of domain/rate-limits.ts that belong to tools (the `register` one is per IP). */
const TOOL_LIMITS: ReadonlyMap<string, number> = new Map(
  Object.entries(RATE_LIMITS)
    .filter(([, limit]) => limit.key === 'user')
    .map(([tool, limit]) => [tool, limit.points]),
);

/**
 * tools/list and tools/call. The one place where a tool call is checked (known tool, argument shapes),
 * rate limited, and where a thrown DomainError becomes an `isError` result. Anything else thrown is a
 * protocol error, raised to the endpoint (which logs it and answers -32000 with the service's own text).
 */
export class ToolRegistry {
  private readonly byName = new Map<string, ServedTool>();
  /** Each tool's input class read once at start-up: its inputSchema and the names it accepts. */
  private readonly inputs = new Map<string, InputDeclaration>();

  constructor(
    tools: readonly ServedTool[],
    private readonly rateLimiter: RateLimiter,
    private readonly logger?: ToolRegistryLogger,
    private readonly observers: ToolRegistryObservers = {},
  ) {
    for (const tool of tools) {
      if (this.byName.has(tool.name)) throw new Error(`tool "${tool.name}" is registered twice`);
      this.byName.set(tool.name, tool);
      this.inputs.set(tool.name, declareInput(tool.input));
    }
  }

  names(): string[] {
    return [...this.byName.keys()];
  }

  list(): ToolDescriptor[] {
    return [...this.byName.values()].map(({ name, title, description, outputSchema, annotations, _meta }) => ({
      name,
      title,
      description,
      inputSchema: this.inputs.get(name)!.inputSchema,
      ...(outputSchema ? { outputSchema } : {}),
      annotations,
      ...(_meta ? { _meta } : {}),
    }));
  }

  /**
   * An unknown tool name is a protocol error (-32602), as MCP prescribes: the client asked for something
   * tools/list never offered, which no retry with other arguments can fix.
   */
  async call(principal: Principal, name: unknown, args: unknown): Promise<ToolResult> {
    if (typeof name !== 'string' || name === '') throw invalidParams('Invalid params: "name" must be the name of a tool');
    const tool = this.byName.get(name);
    if (!tool) throw invalidParams(`Unknown tool: ${name}`);
    const started = performance.now();
    let outcome: ToolOutcome = 'error';
    try {
      const result = await this.callTool(tool, principal, args);
      outcome = result.isError ? 'refused' : 'ok';
      return result;
    } catch (err) {
      if (err instanceof ServiceUnavailable) return errorResult(SERVICE_UNAVAILABLE_TEXT);
      throw err;
    } finally {
      this.observers.telemetry?.toolCall(tool.name, outcome, (performance.now() - started) / 1000);
    }
  }

  private async callTool(tool: ServedTool, principal: Principal, args: unknown): Promise<ToolResult> {
    if (args === undefined || args === null) args = {};
    if (typeof args !== 'object' || Array.isArray(args)) throw invalidParams('Invalid params: "arguments" must be an object');

    const read = readArguments(this.inputs.get(tool.name)!, args as Record<string, unknown>);
    if ('problem' in read) return errorResult(read.problem);
    const textProblem = checkText(read.input);
    if (textProblem) return errorResult(textProblem);

    if (!(await this.allowed(tool.name, principal.userId))) return errorResult(toolRateLimited(tool.name).message);

    try {
      return await tool.call(principal, read.input);
    } catch (err) {
      if (isDomainError(err)) return errorResult(err.message);
      if (err instanceof JsonRpcError) throw err;
      if (this.observers.isUnavailable?.(err)) {
        this.logger?.warn({ err, tool: tool.name }, 'tool call failed: the database is not answering');
        throw new ServiceUnavailable();
      }
      // The endpoint logs it and answers INTERNAL_ERROR_MESSAGE: the thrown text may be the database's.
      throw err;
    }
  }

  private async allowed(tool: string, userId: string): Promise<boolean> {
    const points = TOOL_LIMITS.get(tool);
    if (points === undefined) return true;
    try {
      return await this.rateLimiter.consume(tool, userId, points, RATE_WINDOW_SECONDS);
    } catch (err) {
      // Rate limiting is fail-open (spec): a limiter that throws instead of answering still lets the call through.
      this.logger?.warn({ err: String(err), tool }, 'rate limiter failed; allowing the call');
      return true;
    }
  }
}

/** Thrown out of `callTool` so `call` counts the outcome as `error`, then answered as an `isError` result. */
class ServiceUnavailable extends Error {}
