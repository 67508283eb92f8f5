import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import type { Settings } from '../../application/ports/settings.js';
import type { WebSessions } from '../../application/ports/web-sessions.js';
import { ViewerAccess } from '../../application/hosting/viewer-access.js';
import type { AppContainer } from '../../shells/container.js';
import { hostClassifier, hostRouter } from '../../shells/koa/host-router.js';
import { dashboardsSurfaceFrom } from '../../shells/koa/dashboards/dashboards-surface.js';
import { dashboardsFastPathFrom } from '../../shells/koa/dashboards/fast-path.js';
import { createViewerRoutes } from '../../shells/koa/app/viewer-routes.js';
import { createAppSurface } from '../../shells/koa/app/app-surface.js';
import { createDashboardsRoutes } from '../../shells/koa/app/dashboards-routes.js';

/** Web sessions by token, standing in for the sign-in capability's store. */
export class StubWebSessions implements WebSessions {
  readonly tokens = new Map<string, string>();
  async resolve(token: string): Promise<{ userId: string } | null> {
    const userId = this.tokens.get(token);
    return userId ? { userId } : null;
  }
}

export interface HostingServer {
  port: number;
  errors: unknown[];
  close(): Promise<void>;
}

/**
 * The dashboards fast path, then the dashboards surface and the viewer routes behind the real host router, on
 * a free loopback port; `dashboardsPages` adds the web app's dashboards pages (shells/koa/app/dashboards-routes.ts).
 */
export async function startHostingServer(app: AppContainer, settings: Settings, sessions: WebSessions, port = 0, options: { dashboardsPages?: boolean } = {}): Promise<HostingServer> {
  const errors: unknown[] = [];
  const viewerRoutes = createViewerRoutes({ settings, sessions, viewers: app.container.get(ViewerAccess) });
  const pages = options.dashboardsPages ? (createDashboardsRoutes(app.container, settings).routes() as unknown as Koa.Middleware) : null;
  const notFound: Koa.Middleware = async (ctx) => {
    ctx.status = 404;
    ctx.body = 'Not Found';
  };
  const viewer = viewerRoutes.routes() as unknown as Koa.Middleware;
  const routes: Koa.Middleware = pages ? (ctx, next) => viewer(ctx, () => pages(ctx, next)) : viewer;
  const koa = new Koa();
  koa.use(
    hostRouter(settings, {
      api: notFound,
      // Behind the real app surface, whose one catch answers the viewer routes' refusals.
      app: createAppSurface(app.container, settings, { extra: routes }),
      dashboards: dashboardsSurfaceFrom(app.container, (e) => errors.push(e)),
    }),
  );
  const fastPath = dashboardsFastPathFrom(app.container);
  const callback = koa.callback();
  const classify = hostClassifier(settings);
  const server = http.createServer((req, res) => {
    if (!fastPath(req, res, classify(req.headers.host))) void callback(req, res);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    errors,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
