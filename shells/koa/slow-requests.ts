import type http from 'node:http';
import type { Socket } from 'node:net';
import type { Settings } from '../../application/ports/settings.js';
import { isMcpPath } from './mcp/endpoint.js';

type Limits = Pick<Settings, 'httpHeadersTimeoutSeconds' | 'httpBodyTimeoutSeconds' | 'mcpBodyTimeoutSeconds' | 'httpMaxConnections'>;

/**
 * node:http's own deadlines (docs/decisions/0108-slow-requests.md): headers within HTTP_HEADERS_TIMEOUT_SECONDS, a whole request
 * within MCP_BODY_TIMEOUT_SECONDS (the longest any route allows: /mcp, whose body may be 32 MiB), both
 * answered 408 and closed by node:http itself. Checked a few times per deadline, so a small one holds.
 */
export function serverTimeouts(limits: Limits): Pick<http.ServerOptions, 'headersTimeout' | 'requestTimeout' | 'connectionsCheckingInterval'> {
  const headersTimeout = Math.round(limits.httpHeadersTimeoutSeconds * 1000);
  const requestTimeout = Math.max(headersTimeout, Math.round(limits.mcpBodyTimeoutSeconds * 1000));
  const shortest = Math.min(headersTimeout, Math.round(limits.httpBodyTimeoutSeconds * 1000));
  return { headersTimeout, requestTimeout, connectionsCheckingInterval: Math.min(5000, Math.max(50, Math.round(shortest / 4))) };
}

/**
 * The cap on open connections (past it node:http closes a new connection as soon as it is accepted), and a
 * deadline for a connection's first bytes: node:http's header deadline starts with the first byte, so a
 * connection that never sends one would otherwise hold its place forever. `bodyDeadline` lifts it on the
 * first request; between requests node:http's keep-alive deadline holds.
 */
export function guardConnections(server: http.Server, limits: Limits): void {
  server.maxConnections = limits.httpMaxConnections;
  const ms = Math.round(limits.httpHeadersTimeoutSeconds * 1000);
  server.on('connection', (socket: Socket) => socket.setTimeout(ms));
}

/**
 * The body deadline of every route but /mcp (their bodies are forms and small JSON): a request whose body
 * has not all arrived HTTP_BODY_TIMEOUT_SECONDS after its headers loses its connection. A request with no
 * body (most of them, and every dashboard file) costs two header lookups.
 */
export function bodyDeadline(limits: Limits): (req: http.IncomingMessage) => void {
  const ms = Math.round(limits.httpBodyTimeoutSeconds * 1000);
  return (req) => {
    // The first request lifts guardConnections' deadline, which would otherwise cut a long answer short.
    if (req.socket.timeout) req.socket.setTimeout(0);
    const { headers } = req;
    if (headers['transfer-encoding'] === undefined && (headers['content-length'] === undefined || headers['content-length'] === '0')) return;
    if (req.complete || isMcpPath(req.url)) return;
    const timer = setTimeout(() => {
      if (!req.complete) req.socket.destroy();
    }, ms);
    timer.unref();
    const done = () => clearTimeout(timer);
    req.once('end', done);
    req.once('close', done);
  };
}
