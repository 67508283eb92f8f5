import { GUIDE_GROUPS } from '../koa/mcp/tools/definition.js';
import { TOOLS } from '../koa/mcp/tools/index.js';

/**
 * When an assistant should reach for each MCP tool, in the order a person usually needs them. The
 * plugin's skill is written from this guide, which is read from the tool definitions themselves (each
 * declares its group and when to use it), so a tool added or renamed on the server is here too.
 */
export interface ToolUse {
  tool: string;
  when: string;
}

export interface ToolGroup {
  title: string;
  tools: ToolUse[];
}

export const TOOL_GUIDE: readonly ToolGroup[] = GUIDE_GROUPS.map((title) => ({
  title,
  tools: TOOLS.filter((tool) => tool.guide.group === title).map((tool) => ({ tool: tool.name, when: tool.guide.when })),
}));

export const GUIDED_TOOL_NAMES: readonly string[] = TOOL_GUIDE.flatMap((group) => group.tools.map((use) => use.tool));
