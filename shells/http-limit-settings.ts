import type { Settings } from '../application/ports/settings.js';

export type HttpLimitSettings = Pick<
  Settings,
  'mcpAllowedOrigins' | 'mcpMaxAnswerBytes' | 'httpHeadersTimeoutSeconds' | 'httpBodyTimeoutSeconds' | 'mcpBodyTimeoutSeconds' | 'httpMaxConnections'
>;

/**
 * The limits against slow, oversized and cross-site requests: MCP_ALLOWED_ORIGINS (docs/decisions/0107-mcp-origin.md),
 * MCP_MAX_ANSWER_BYTES (0105-batch-caps.md), HTTP_HEADERS_TIMEOUT_SECONDS, HTTP_BODY_TIMEOUT_SECONDS,
 * MCP_BODY_TIMEOUT_SECONDS and HTTP_MAX_CONNECTIONS (0108-slow-requests.md). A value out of range is a start-up
 * error naming the setting.
 */
export function httpLimitSettings(env: NodeJS.ProcessEnv): HttpLimitSettings {
  return {
    mcpAllowedOrigins: allowedOrigins(env.MCP_ALLOWED_ORIGINS),
    mcpMaxAnswerBytes: numberSetting('MCP_MAX_ANSWER_BYTES', env.MCP_MAX_ANSWER_BYTES, 16 * 1024 * 1024, 1024, 2 ** 31, 'a whole number of bytes', true),
    httpHeadersTimeoutSeconds: numberSetting('HTTP_HEADERS_TIMEOUT_SECONDS', env.HTTP_HEADERS_TIMEOUT_SECONDS, 10, 0.1, 600, 'a number of seconds'),
    httpBodyTimeoutSeconds: numberSetting('HTTP_BODY_TIMEOUT_SECONDS', env.HTTP_BODY_TIMEOUT_SECONDS, 10, 0.1, 600, 'a number of seconds'),
    mcpBodyTimeoutSeconds: numberSetting('MCP_BODY_TIMEOUT_SECONDS', env.MCP_BODY_TIMEOUT_SECONDS, 60, 0.1, 3600, 'a number of seconds'),
    httpMaxConnections: numberSetting('HTTP_MAX_CONNECTIONS', env.HTTP_MAX_CONNECTIONS, 1000, 1, 1_000_000, 'a whole number of connections', true),
  };
}

function numberSetting(name: string, raw: string | undefined, fallback: number, min: number, max: number, what: string, whole = false): number {
  const text = raw?.trim() ?? '';
  if (text === '') return fallback;
  const value = Number(text);
  if (!Number.isFinite(value) || value < min || value > max || (whole && !Number.isInteger(value))) {
    throw new Error(`${name} must be ${what}, ${min} to ${max} (got "${raw}")`);
  }
  return value;
}

/** MCP_ALLOWED_ORIGINS: comma-separated origins, each written as a browser sends it (scheme://host[:port]). */
function allowedOrigins(raw: string | undefined): string[] {
  const origins: string[] = [];
  for (const item of (raw ?? '').split(',')) {
    const text = item.trim();
    if (text === '') continue;
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new Error(`MCP_ALLOWED_ORIGINS must list origins such as https://chat.example.com (got "${text}")`);
    }
    if (url.origin === 'null' || url.origin !== text.toLowerCase().replace(/\/$/, '')) {
      throw new Error(`MCP_ALLOWED_ORIGINS must list origins such as https://chat.example.com, without a path (got "${text}")`);
    }
    origins.push(url.origin);
  }
  return origins;
}
