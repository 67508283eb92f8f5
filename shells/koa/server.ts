import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import type { Container } from 'inversify';
import type { Settings } from '../../application/ports/settings.js';
import { buildContainer, type AppContainer } from '../container.js';
import { hostRouter, type SurfaceHandlers } from './host-router.js';
import { createApiSurface } from './api/api-surface.js';
import { createMcpEndpoint } from './mcp/endpoint.js';
import { defaultPrompts } from './mcp/prompts.js';
import { dashboardTools } from './mcp/tools/dashboard-tools.js';
import { accountTools } from './mcp/tools/account-tools.js';
import { connectionTools } from './mcp/tools/connection-tools.js';
import { refreshTools } from './mcp/tools/refresh-tools.js';
import { dashboardResourceSource } from './mcp/tools/dashboard-resource-source.js';
import { dashboardsSurfaceFrom } from './dashboards/dashboards-surface.js';
import { TokenVerifier } from '../../application/ports/token-verifier.js';
import { RateLimiter } from '../../application/ports/rate-limiter.js';
import { createLogger, type Logger } from '../logger.js';
import { createOAuthRoutes } from './api/oauth-routes.js';
import { createAppSurface } from './app/app-surface.js';
import { viewerRoutesFrom } from './app/viewer-routes.js';
import { createConnectionsRoutes } from './app/connections-routes.js';
import { dashboardsFastPathFrom } from './dashboards/fast-path.js';
import { koaOptions } from './koa-options.js';

export interface RunningServer {
  /** The address actually listened on (port 0 picks a free one). */
  port: number;
  app: AppContainer;
  close(): Promise<void>;
}

/** The three surfaces behind one Koa app, routed by Host (docs/architecture.md, "Layers"). */
export function createKoaApp(container: Container, settings: Settings, logger: Logger = createLogger(settings)): Koa {
  const koa = new Koa(koaOptions(settings));
  const mcp = createMcpEndpoint({
    settings,
    verifier: container.get<TokenVerifier>(TokenVerifier),
    tools: [...dashboardTools(container), ...accountTools(container), ...connectionTools(container), ...refreshTools(container)],
    prompts: defaultPrompts(settings),
    resources: dashboardResourceSource(container, settings.serviceName),
    rateLimiter: container.get<RateLimiter>(RateLimiter),
    logger,
  });
  const surfaces: SurfaceHandlers = {
    api: createApiSurface({ mcp, extra: createOAuthRoutes(container, settings, { logger }) }),
    app: createAppSurface(container, settings, { extra: appRoutes(container, settings), logger }),
    dashboards: dashboardsSurfaceFrom(container, (err) => logger.error({ err }, 'dashboards host failed')),
  };
  koa.use(hostRouter(settings, surfaces));
  return koa;
}

/** The app host's routes beyond sign-in and consent: the private-dashboard viewer round trip and connections. */
function appRoutes(container: Container, settings: Settings): Koa.Middleware {
  const viewer = viewerRoutesFrom(container).routes() as unknown as Koa.Middleware;
  const connections = createConnectionsRoutes(container, settings).routes() as unknown as Koa.Middleware;
  return (ctx, next) => viewer(ctx, () => connections(ctx, next));
}

export async function startServer(settings: Settings, options: { container?: AppContainer } = {}): Promise<RunningServer> {
  const app = options.container ?? (await buildContainer(settings, { role: 'server' }));
  const koa = createKoaApp(app.container, settings);
  const callback = koa.callback();
  // Public dashboard files are answered before Koa when possible (see fast-path.ts); anything else,
  // or anything the fast path is unsure of, goes through the full app.
  const fastPath = dashboardsFastPathFrom(app.container);
  const server = http.createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
    if (!fastPath(req, res)) void callback(req, res);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(settings.port, settings.host, () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    app,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await app.close();
    },
  };
}
