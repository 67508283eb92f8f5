import type { Container } from 'inversify';
import type { Principal } from '../../../../application/ports/token-verifier.js';
import type { JsonSchema, ToolInputClass } from './arguments.js';

/** The MCP tool result envelope: one text item, an optional structured copy, `isError` on refusals. */
export interface ToolResult {
  content: Array<{ type: 'text'; text: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

export interface ToolAnnotations {
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint?: boolean;
}

/** The client kit's tool guide, in the order a person usually needs the tools (shells/client-kit/tool-guide.ts). */
export const GUIDE_GROUPS = ['Who and where', 'Publish and change', 'Find and read', 'Versions', 'Data and refresh'] as const;
export type GuideGroup = (typeof GUIDE_GROUPS)[number];

/** What the tool's use cases and settings give it once the service is composed. */
export interface ToolHandler<I extends object> {
  /** Extension metadata, e.g. the MCP Apps view that shows the tool's answer (`ui.resourceUri`). */
  _meta?: Record<string, unknown>;
  /** Receives the checked input; throws DomainError for refusals and never formats errors itself. */
  call(principal: Principal, input: I): Promise<ToolResult>;
}

/**
 * One tool, declared once: what tools/list shows, the input class its arguments are read into (their type,
 * check and inputSchema), where the client kit's guide places it, and how it is bound to its use case.
 */
export interface ToolDefinition<I extends object = object> {
  name: string;
  title: string;
  description: string;
  input: ToolInputClass<I>;
  /** Declared by every tool that returns structuredContent; the payload must satisfy it. */
  outputSchema?: JsonSchema;
  annotations: ToolAnnotations;
  guide: { group: GuideGroup; when: string };
  bind(container: Container): ToolHandler<I>;
}

/** A tool the registry serves: its declaration (the guide aside) with its handler bound. */
export type ServedTool<I extends object = object> = Omit<ToolDefinition<I>, 'bind' | 'guide'> & ToolHandler<I>;

/** Keeps the input class's type tied to the handler's (a list of definitions has mixed input types). */
export const defineTool = <I extends object>(definition: ToolDefinition<I>): ToolDefinition => definition;

export function serve<I extends object>(definition: ToolDefinition<I>, container: Container): ServedTool<I> {
  const { bind, guide: _guide, ...declared } = definition;
  const handler = bind(container);
  return { ...declared, ...(handler._meta ? { _meta: handler._meta } : {}), call: handler.call.bind(handler) };
}
