import { loggedPath } from './logged-path.js';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import type { Container } from 'inversify';
import type { Settings } from '../../application/ports/settings.js';
import { buildContainer, type AppContainer } from '../container.js';
import { startBackgroundWork } from '../background-work.js';
import { hostRouter, type SurfaceHandlers } from './host-router.js';
import { createApiSurface } from './api/api-surface.js';
import { createMcpHandler, mcpFront, mcpMiddleware, type McpHandler } from './mcp/endpoint.js';
import { defaultPrompts } from './mcp/prompts.js';
import { serveTools } from './mcp/tools/index.js';
import { dashboardResourceSource } from './mcp/tools/dashboard-resource-source.js';
import { dashboardsSurfaceFrom } from './dashboards/dashboards-surface.js';
import { TokenVerifier } from '../../application/ports/token-verifier.js';
import { RateLimiter } from '../../application/ports/rate-limiter.js';
import { createLogger, enterLogContext, type Logger } from '../logger.js';
import { createOAuthRoutes } from './api/oauth-routes.js';
import { createAppSurface } from './app/app-surface.js';
import { createUnsubscribeRoutes } from './app/unsubscribe-routes.js';
import { viewerRoutesFrom } from './app/viewer-routes.js';
import { createConnectionsRoutes } from './app/connections-routes.js';
import { createConnectRoutes } from './app/connect-routes.js';
import { createDashboardsRoutes } from './app/dashboards-routes.js';
import { dashboardsFastPathFrom } from './dashboards/fast-path.js';
import { koaOptions } from './koa-options.js';
import { Telemetry } from '../../application/ports/telemetry.js';
import { isDatabaseUnavailable } from '../../adapters/postgres/database-unavailable.js';
import { observeRequests, setHead } from './request-observer.js';
import { startAdminListener, type AdminListener } from './admin-listener.js';
import { bodyDeadline, guardConnections, serverTimeouts } from './slow-requests.js';
import { plainHttpExposure } from '../plain-http-warning.js';
import { DataSource } from 'typeorm';

export interface RunningServer {
  /** The address actually listened on (port 0 picks a free one). */
  port: number;
  /** The admin listener's port, when ADMIN_PORT is set. */
  adminPort: number | null;
  app: AppContainer;
  close(): Promise<void>;
}

/** The three surfaces behind one Koa app, routed by Host (docs/architecture.md, "Layers"). */
export function createKoaApp(container: Container, settings: Settings, logger: Logger = createLogger(settings), mcp: McpHandler = mcpHandlerFrom(container, settings, logger)): Koa {
  const koa = new Koa(koaOptions(settings));
  const surfaces: SurfaceHandlers = {
    api: createApiSurface({ mcp: mcpMiddleware(mcp), extra: createOAuthRoutes(container, settings, { logger }) }),
    app: createAppSurface(container, settings, { extra: appRoutes(container, settings), logger }),
    dashboards: dashboardsSurfaceFrom(container, (err) => logger.error({ err }, 'dashboards host failed')),
  };
  koa.use(hostRouter(settings, surfaces));
  // Replaces Koa's own console output for errors that reach it: one line with the request id, and, as
  // Koa's own, none for a 404 or an error meant for the client (`expose`).
  koa.on('error', (err: { status?: number; expose?: boolean }, ctx?: Koa.Context) => {
    if (err?.status === 404 || err?.expose) return;
    logger.error({ err, surface: ctx?.state.surface, path: loggedPath(ctx?.path) }, 'request failed');
  });
  return koa;
}

/** The MCP endpoint with the service's tools, prompts and resources. */
export function mcpHandlerFrom(container: Container, settings: Settings, logger: Logger): McpHandler {
  return createMcpHandler({
    settings,
    verifier: container.get<TokenVerifier>(TokenVerifier),
    tools: serveTools(container),
    prompts: defaultPrompts(settings),
    resources: dashboardResourceSource(container, settings.serviceName),
    rateLimiter: container.get<RateLimiter>(RateLimiter),
    logger,
    telemetry: container.get<Telemetry>(Telemetry),
    isUnavailable: isDatabaseUnavailable,
  });
}

/** The app host's routes beyond sign-in and consent: the private-dashboard viewer round trip, connections, /connect, dashboards and unsubscribing. */
function appRoutes(container: Container, settings: Settings): Koa.Middleware {
  const viewer = viewerRoutesFrom(container).routes() as unknown as Koa.Middleware;
  const connections = createConnectionsRoutes(container, settings).routes() as unknown as Koa.Middleware;
  const connect = createConnectRoutes(settings).routes() as unknown as Koa.Middleware;
  const dashboards = createDashboardsRoutes(container, settings).routes() as unknown as Koa.Middleware;
  const unsubscribe = createUnsubscribeRoutes(container, settings).routes() as unknown as Koa.Middleware;
  return (ctx, next) => viewer(ctx, () => connections(ctx, () => connect(ctx, () => dashboards(ctx, () => unsubscribe(ctx, next)))));
}

/** The server's request handler: the fast paths first, then Koa, each request observed and in its log context. */
function observedFront(app: AppContainer, settings: Settings, mcp: McpHandler, koa: Koa) {
  const logger = app.logger;
  const callback = koa.callback();
  // Public dashboard files are answered before Koa when possible (see fast-path.ts), and so is the MCP
  // endpoint on the API host (one handler, two fronts sending the same bytes: endpoint.ts); anything
  // else, or anything the fast path is unsure of, goes through the full app.
  const fastPath = dashboardsFastPathFrom(app.container);
  // The failure is reported after the handler's work, outside its log context: the id goes on the line itself.
  const mcpDirect = mcpFront(mcp, (err, path, context) => logger.error({ err, surface: 'api', path, ...context }, 'request failed'));
  const deadline = bodyDeadline(settings);
  const observed = observeRequests(
    (req, res, host, head, context) => {
      deadline(req);
      if (fastPath(req, res, host, head)) return;
      // The MCP endpoint enters the log context itself, for the work that may log (endpoint.ts).
      if (host.surface === 'api' && mcpDirect(req, res, head, context)) return;
      setHead(res, head);
      // Koa's routes run in the log context until the response closes ('close' follows 'finish' on every one).
      const { release } = enterLogContext(context, () => void callback(req, res));
      res.once('close', release);
    },
    settings,
    app.telemetry,
    logger,
  );
  return observed;
}

export async function startServer(settings: Settings, options: { container?: AppContainer } = {}): Promise<RunningServer> {
  const app = options.container ?? (await buildContainer(settings, { role: 'server' }));
  const stopBackgroundWork = await startBackgroundWork(app);
  const logger = app.logger;
  const mcp = mcpHandlerFrom(app.container, settings, logger);
  const koa = createKoaApp(app.container, settings, logger, mcp);
  const observed = observedFront(app, settings, mcp, koa);
  // Slow clients (docs/decisions/0108-slow-requests.md): deadlines for headers and bodies, and a cap on open connections.
  const server = http.createServer({ keepAliveTimeout: 65_000, ...serverTimeouts(settings) }, observed.handler);
  guardConnections(server, settings);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  app.ownPorts.add(port);
  const exposure = plainHttpExposure(settings);
  if (exposure) logger.warn({ exposure: 'plain_http' }, exposure);
  let admin: AdminListener | null = null;
  let draining = false;
  if (settings.adminPort !== null) {
    admin = await startAdminListener(settings.adminHost, settings.adminPort, {
      metrics: () => app.telemetry.exposition(),
      ready: async () => !draining && (await databaseReady(app)),
    }, logger);
    app.ownPorts.add(admin.port);
  }
  return {
    port,
    adminPort: admin?.port ?? null,
    app,
    async close() {
      // Drain (docs/operations.md, "Running in production"): stop accepting, let in-flight requests finish within the
      // grace, then close what is left, stop the jobs and release the pools.
      draining = true;
      observed.drain();
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      const deadline = Date.now() + settings.shutdownGraceSeconds * 1000;
      server.closeIdleConnections();
      while (observed.inFlight() > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 25));
        server.closeIdleConnections();
      }
      if (observed.inFlight() > 0) logger.warn({ inFlight: observed.inFlight() }, 'shutdown grace over; closing the requests still running');
      server.closeAllConnections();
      await closed;
      await admin?.close();
      await stopBackgroundWork();
      await app.close();
    },
  };
}

/** The database answers and no migration is pending (always ready without one: memory storage). */
async function databaseReady(app: AppContainer): Promise<boolean> {
  if (!app.container.isBound(DataSource)) return true;
  const dataSource = app.container.get(DataSource);
  const rows: Array<{ name: string }> = await dataSource.query(`SELECT name FROM ${dataSource.options.migrationsTableName ?? 'migrations'}`);
  const applied = new Set(rows.map((row) => row.name));
  return dataSource.migrations.every((migration) => applied.has(migration.name ?? migration.constructor.name));
}
