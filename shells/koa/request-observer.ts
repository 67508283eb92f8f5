import { randomUUID } from 'node:crypto';
import type http from 'node:http';
import type { Settings } from '../../application/ports/settings.js';
import type { Telemetry } from '../../application/ports/telemetry.js';
import { logContext, type Logger } from '../logger.js';
import { classifyHost } from './host-router.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

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
 * - a request id: the `x-request-id` a trusted proxy sent (TRUST_PROXY set), else a new UUID; echoed
 *   in the response header and carried by every log line written while the request runs;
 * - one log line when it ends (method, path without the query, status, time): `info` on the API and
 *   app hosts, `debug` on the dashboards host, which serves many more and cheaper requests;
 * - the HTTP metrics by surface and status, and dashboards served by status;
 * - an in-flight count for the shutdown drain.
 * The query string is never logged: it carries OAuth states, codes and viewer tickets.
 */
export function observeRequests(handler: Handler, settings: Settings, telemetry: Telemetry, logger: Logger): ObservedHandler {
  let inFlight = 0;
  let draining = false;
  const trustProxy = settings.trustProxyHops > 0;
  const log = logger.child({ component: 'http' });
  const observed: Handler = (req, res) => {
    const offered = trustProxy ? req.headers['x-request-id'] : undefined;
    const reqId = typeof offered === 'string' && REQUEST_ID.test(offered) ? offered : randomUUID();
    res.setHeader('x-request-id', reqId);
    if (draining) res.setHeader('connection', 'close');
    const started = performance.now();
    inFlight++;
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      inFlight--;
      const seconds = (performance.now() - started) / 1000;
      const surface = classifyHost(settings, req.headers.host).surface;
      // A response cut short (client gone, server closing) has no status worth counting as sent.
      const status = res.writableFinished ? res.statusCode : 499;
      telemetry.httpRequest(surface, status, seconds);
      if (surface === 'dashboards') telemetry.dashboardServed(status);
      const path = (req.url ?? '').split('?', 1)[0];
      const line = { reqId, surface, method: req.method, path, status, ms: Math.round(seconds * 1000) };
      if (status >= 500) log.warn(line, 'request answered with a server error');
      else if (surface === 'dashboards') log.debug(line, 'request');
      else log.info(line, 'request');
    };
    res.once('finish', finish);
    res.once('close', finish);
    logContext.run({ reqId }, () => handler(req, res));
  };
  return {
    handler: observed,
    inFlight: () => inFlight,
    drain: () => {
      draining = true;
    },
  };
}
