import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../logger.js';

export interface AdminListener {
  port: number;
  close(): Promise<void>;
}

export interface AdminRoutes {
  /** Prometheus text exposition. */
  metrics(): Promise<{ contentType: string; text: string }>;
  /** True when the instance can serve: its database answers and every migration is applied. */
  ready(): Promise<boolean>;
}

const READY_TIMEOUT_MS = 2_000;

/**
 * The admin listener (ADMIN_PORT on ADMIN_HOST): `/metrics`, `/readyz`, `/livez`, nothing else. A
 * listener of its own so none of it is ever reachable through the API, app or dashboards hosts, and
 * so it can stay on a private address while those face the internet.
 */
export async function startAdminListener(host: string, port: number, routes: AdminRoutes, logger: Logger): Promise<AdminListener> {
  const log = logger.child({ component: 'admin' });
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?', 1)[0];
    const text = (status: number, body: string, type = 'text/plain; charset=utf-8') => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return text(405, 'Method Not Allowed');
    if (path === '/livez') return text(200, 'ok');
    if (path === '/readyz') {
      void withTimeout(routes.ready(), READY_TIMEOUT_MS).then(
        (ready) => text(ready ? 200 : 503, ready ? 'ok' : 'not ready'),
        (err: unknown) => {
          log.warn({ err }, 'readiness check failed');
          text(503, 'not ready');
        },
      );
      return;
    }
    if (path === '/metrics') {
      void routes.metrics().then(
        ({ contentType, text: body }) => text(200, body, contentType),
        (err: unknown) => {
          log.error({ err }, 'collecting metrics failed');
          text(500, 'metrics unavailable');
        },
      );
      return;
    }
    text(404, 'Not Found');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  log.info({ host, port: bound }, 'admin listener ready (/metrics, /readyz, /livez)');
  return {
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  work.catch(() => undefined); // a rejection after the timeout answered is moot, not unhandled
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
