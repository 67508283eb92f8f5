import type { Container } from 'inversify';
import { serve, type ServedTool, type ToolDefinition } from './definition.js';
import { DASHBOARD_TOOLS } from './dashboard-tools.js';
import { VERSION_TOOLS } from './version-tools.js';
import { ACCOUNT_TOOLS } from './account-tools.js';
import { CONNECTION_TOOLS } from './connection-tools.js';
import { REFRESH_TOOLS } from './refresh-tools.js';

/**
 * Every MCP tool, in tools/list order. This one list feeds tools/list, the client kit's tool guide and the
 * tests; adding a tool means adding its definition here and its use case.
 */
export const TOOLS: readonly ToolDefinition[] = [...DASHBOARD_TOOLS, ...VERSION_TOOLS, ...ACCOUNT_TOOLS, ...CONNECTION_TOOLS, ...REFRESH_TOOLS];

export const TOOL_NAMES: readonly string[] = TOOLS.map((tool) => tool.name);

/** The tools bound to the composed service's use cases, for the registry. */
export const serveTools = (container: Container, tools: readonly ToolDefinition[] = TOOLS): ServedTool[] => tools.map((tool) => serve(tool, container));
