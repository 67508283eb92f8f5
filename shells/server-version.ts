/** The version this server reports: MCP `initialize` (serverInfo) and the client kit's plugin metadata. */
export const SERVER_VERSION = '0.6.0';
