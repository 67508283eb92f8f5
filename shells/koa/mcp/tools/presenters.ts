import type { ToolResult } from '../tool-registry.js';

/** How tool answers read: a human sentence, then the machine copy between BEGIN_JSON and END_JSON. */

export function textWithJson(lines: string[], json: object): string {
  return [...lines, 'BEGIN_JSON', JSON.stringify(json, null, 2), 'END_JSON'].join('\n');
}

export function answer(lines: string[], json: object, structured = false): ToolResult {
  const result: ToolResult = { content: [{ type: 'text', text: textWithJson(lines, json) }] };
  if (structured) result.structuredContent = json as Record<string, unknown>;
  return result;
}

export function textOnly(text: string): ToolResult {
  return { content: [{ type: 'text', text }] };
}

export function warningLines(warnings: string[]): string[] {
  return warnings.map((w) => `Warning: ${w}`);
}
