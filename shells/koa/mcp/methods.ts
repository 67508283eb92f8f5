import { isDomainError } from '../../../domain/errors.js';
import type { Settings } from '../../../application/ports/settings.js';
import type { Principal } from '../../../application/ports/token-verifier.js';
import { serverInstructions } from './instructions.js';
import { invalidParams, JsonRpcError, METHOD_NOT_FOUND, RESOURCE_NOT_FOUND } from './jsonrpc.js';
import type { PromptCatalog } from './prompts.js';
import { parseImageResourceUri, parseResourceUri, resourceTemplates, type ResourceSource } from './resources.js';
import type { ToolRegistry } from './tool-registry.js';
import { dashboardViewResource, type ViewResourceContents } from './ui/dashboard-view.js';
import { SERVER_VERSION } from '../../server-version.js';

/** The MCP protocol versions this server speaks, newest first; a client asking for another gets the newest. */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-06-18', '2024-11-05'] as const;

export type MethodSettings = Pick<Settings, 'serviceName' | 'dashboardScheme' | 'dashboardDomain'>;

export function negotiateProtocolVersion(requested: unknown): string {
  return (SUPPORTED_PROTOCOL_VERSIONS as readonly unknown[]).includes(requested) ? (requested as string) : SUPPORTED_PROTOCOL_VERSIONS[0];
}

/**
 * One place mapping what a ResourceSource throws to the spec's resource codes. Anything else is passed on
 * as thrown: the endpoint logs it and answers -32000 with the service's own text.
 */
function resourceError(err: unknown, uri?: string): unknown {
  if (err instanceof JsonRpcError) return err;
  if (isDomainError(err)) {
    if (err.code === 'not_found') return new JsonRpcError(RESOURCE_NOT_FOUND, uri ? `Resource not found: ${uri}` : err.message, uri ? { uri } : undefined);
    if (err.code === 'unavailable') return err;
    return invalidParams(err.message);
  }
  return err;
}

/** The MCP methods this server answers, independent of HTTP. Throws JsonRpcError; the transport formats it. */
export class McpMethods {
  private readonly instructions: string;
  /** The MCP Apps view, built once: it depends on the settings alone. Not listed (the extension allows that). */
  private readonly view: ViewResourceContents;
  /** Results that never change while the process runs, serialised once (`initialize` by protocol version). */
  private readonly fixed = new Map<string, string>();
  private readonly initializeByVersion = new Map<string, string>();
  /** The same results as the end of a reply, `,"result":<json>}` in UTF-8, ready to write after the id. */
  private readonly tails = new Map<string, Buffer>();

  constructor(
    private readonly settings: MethodSettings,
    private readonly tools: ToolRegistry,
    private readonly prompts: PromptCatalog,
    private readonly resources: ResourceSource,
  ) {
    this.instructions = serverInstructions(settings, tools.names());
    this.view = dashboardViewResource(settings);
    for (const version of SUPPORTED_PROTOCOL_VERSIONS) this.initializeByVersion.set(version, JSON.stringify(this.initialize(version)));
    this.fixed.set('tools/list', JSON.stringify({ tools: tools.list() }));
    this.fixed.set('prompts/list', JSON.stringify({ prompts: prompts.list() }));
    this.fixed.set('resources/templates/list', JSON.stringify({ resourceTemplates: resourceTemplates(settings.serviceName) }));
    for (const json of [...this.fixed.values(), ...this.initializeByVersion.values()]) this.tails.set(json, Buffer.from(`,"result":${json}}`));
  }

  /** fixedResult as the bytes that end the reply (see `tails`), or undefined. */
  fixedReplyTail(method: string, params: Record<string, unknown>): Buffer | undefined {
    const json = this.fixedResult(method, params);
    return json === undefined ? undefined : this.tails.get(json);
  }

  /**
   * The serialised result of a method whose answer is fixed at start-up (what `handle` would return,
   * through JSON.stringify), or undefined for any other method.
   */
  fixedResult(method: string, params: Record<string, unknown>): string | undefined {
    if (method === 'initialize') return this.initializeByVersion.get(negotiateProtocolVersion(params.protocolVersion));
    return this.fixed.get(method);
  }

  private initialize(protocolVersion: string) {
    return {
      protocolVersion,
      capabilities: { tools: { listChanged: false }, prompts: { listChanged: false }, resources: { listChanged: false } },
      serverInfo: { name: this.settings.serviceName, version: SERVER_VERSION },
      instructions: this.instructions,
    };
  }

  async handle(principal: Principal, method: string, params: Record<string, unknown>): Promise<unknown> {
    switch (method) {
      case 'initialize':
        return this.initialize(negotiateProtocolVersion(params.protocolVersion));
      case 'ping':
      case 'notifications/initialized':
      case 'notifications/cancelled':
        return {};
      case 'tools/list':
        return { tools: this.tools.list() };
      case 'tools/call':
        return this.tools.call(principal, params.name, params.arguments);
      case 'prompts/list':
        return { prompts: this.prompts.list() };
      case 'prompts/get':
        return this.prompts.get(params.name, params.arguments);
      case 'resources/templates/list':
        return { resourceTemplates: resourceTemplates(this.settings.serviceName) };
      case 'resources/list':
        return this.listResources(principal, params.cursor);
      case 'resources/read':
        return this.readResource(principal, params.uri);
      default:
        throw new JsonRpcError(METHOD_NOT_FOUND, `Method not found: ${method}`);
    }
  }

  private async listResources(principal: Principal, cursor: unknown) {
    if (cursor !== undefined && cursor !== null && typeof cursor !== 'string') throw invalidParams('Invalid params: "cursor" must be a string');
    try {
      const page = await this.resources.list(principal, typeof cursor === 'string' && cursor !== '' ? cursor : undefined);
      return page.nextCursor ? { resources: page.resources, nextCursor: page.nextCursor } : { resources: page.resources };
    } catch (err) {
      throw resourceError(err);
    }
  }

  private async readResource(principal: Principal, uri: unknown) {
    if (uri === this.view.uri) return { contents: [this.view] };
    const image = parseImageResourceUri(this.settings.serviceName, uri);
    if (image) {
      try {
        return { contents: [await this.resources.image(principal, image)] };
      } catch (err) {
        throw resourceError(err, image.uri);
      }
    }
    const ref = parseResourceUri(this.settings.serviceName, uri);
    try {
      return { contents: [await this.resources.read(principal, ref)] };
    } catch (err) {
      throw resourceError(err, ref.uri);
    }
  }
}
