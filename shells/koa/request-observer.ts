import { loggedPath } from './logged-path.js';
import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Settings } from '../../application/ports/settings.js';
import type { Telemetry } from '../../application/ports/telemetry.js';
import type { LogContext, Logger } from '../logger.js';
import { hostClassifier, type HostClass } from './host-router.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;
/**
 * The wrapped handler also gets the Host header's classification, worked out once here for both, the request's
 * log context (for the work it runs in it: enterLogContext in ../logger.ts), and the
 * response headers every answer starts with (`x-request-id`, and `connection: close` while draining) as a
 * flat name/value list. It writes them first: in `writeHead`'s list on the node:http fronts (a list goes
 * out as it is only when no header was set on the response before; one set earlier sends every header
 * through `setHeader`, about 3 % of a `tools/list`), or with `setHead` before handing the request to Koa.
 */
type ClassifiedHandler = (req: http.IncomingMessage, res: http.ServerResponse, host: HostClass, head: readonly string[], context: LogContext) => void;

/** Sets a head list (name, value, name, value, …) on a response, for handlers that write headers one by one. */
export function setHead(res: http.ServerResponse, head: readonly string[]): void {
  for (let i = 0; i < head.length; i += 2) res.setHeader(head[i]!, head[i + 1]!);
}

/** What a proxy's request id may look like to be taken over; anything else gets a fresh one. */
const REQUEST_ID = /^[A-Za-z0-9._:\-]{1,128}$/;

export interface ObservedHandler {
  handler: Handler;
  /** Requests started and not yet finished. */
  inFlight(): number;
  /** From now on every response asks its client to close the connection (the server is draining). */
  drain(): void;
}

/**
 * Wraps the server's request handler with what operators need around every request:
 * - a request id: the `x-request-id` a trusted proxy sent (TRUST_PROXY set), else a new UUID, echoed
 *   in the response header (written by the handler: see ClassifiedHandler). On the API and app hosts
 *   every log line written while the request's work runs carries it (the handler runs that work in the
 *   log context it is handed); the dashboards host, the hot path, skips that context and has its id on
 *   its own request line only;
 * - one log line when it ends (method, path without the query, status, time): `info` on the API and
 *   app hosts, `debug` on the dashboards host, which serves many more and cheaper requests;
 * - the HTTP metrics by surface and status, and dashboards served by status;
 * - an in-flight count for the shutdown drain.
 * The query string is never logged: it carries OAuth states, codes and viewer tickets.
 * Per request this costs a few map lookups (the hosting bench, docs/benchmarks.md's 50 KB dashboard row, measured it).
 */
export function observeRequests(handler: ClassifiedHandler, settings: Settings, telemetry: Telemetry, logger: Logger): ObservedHandler {
  let inFlight = 0;
  let draining = false;
  const trustProxy = settings.trustProxyHops > 0;
  const log = logger.child({ component: 'http' });
  const classify = hostClassifier(settings);
  const observed: Handler = (req, res) => {
    const offered = trustProxy ? req.headers['x-request-id'] : undefined;
    const reqId = typeof offered === 'string' && REQUEST_ID.test(offered) ? offered : randomUUID();
    const head = draining ? ['x-request-id', reqId, 'connection', 'close'] : ['x-request-id', reqId];
    const host = classify(req.headers.host);
    const surface = host.surface;
    const started = performance.now();
    inFlight++;
    // 'close' follows 'finish' on every response, and alone on one cut short; it is emitted once, so `on` (no once-wrapper) will do.
    res.on('close', () => {
      inFlight--;
      const seconds = (performance.now() - started) / 1000;
      // A response cut short (client gone, server closing) has no status worth counting as sent.
      const status = res.writableFinished ? res.statusCode : 499;
      telemetry.httpRequest(surface, status, seconds);
      if (surface === 'dashboards') telemetry.dashboardServed(status);
      const level = status >= 500 ? 'warn' : surface === 'dashboards' ? 'debug' : 'info';
      if (!log.isLevelEnabled(level)) return;
      const line = { reqId, surface, method: req.method, path: loggedPath(req.url), status, ms: Math.round(seconds * 1000) };
      log[level](line, status >= 500 ? 'request answered with a server error' : 'request');
    });
    handler(req, res, host, head, { reqId });
  };
  return {
    handler: observed,
    inFlight: () => inFlight,
    drain: () => {
      draining = true;
    },
  };
}
