import { expect } from 'chai';
import http from 'node:http';
import Koa from 'koa';
import type { Container } from 'inversify';
import type { Settings } from '../../application/ports/settings.js';
import { buildContainer } from '../../shells/container.js';
import { createApiSurface } from '../../shells/koa/api/api-surface.js';
import { createOAuthRoutes } from '../../shells/koa/api/oauth-routes.js';
import { createAppSurface } from '../../shells/koa/app/app-surface.js';
import { hostRouter } from '../../shells/koa/host-router.js';
import { request, type HttpResponse } from './http.js';
import { TestClock } from './oauth-kit.js';
import { freePort, settingsForPort } from './server.js';
import { koaOptions } from '../../shells/koa/koa-options.js';

export interface OAuthServer {
  url: string;
  settings: Settings;
  container: Container;
  clock: TestClock;
  hosts: { api: string; app: string };
  close(): Promise<void>;
}

/**
 * The sign-in surfaces alone (API host: the OAuth routes; app host: the web app) on memory adapters,
 * composed the way the full server composes them, with a hand-moved clock. `storage: 'database'` uses
 * DATABASE_URL from `env` (a database of createMigratedTestDatabase()).
 */
export async function startOAuthServer(env: NodeJS.ProcessEnv = {}, storage: 'memory' | 'database' = 'memory'): Promise<OAuthServer> {
  const port = await freePort();
  const settings = settingsForPort(port, env);
  const clock = new TestClock(Date.now());
  const app = await buildContainer(settings, { storage, clock, refreshWorkers: false });
  const koa = new Koa(koaOptions(settings));
  const refuse: Koa.Middleware = async (ctx, next) => (ctx.path.startsWith('/mcp') ? void (ctx.status = 401) : next());
  koa.use(
    hostRouter(settings, {
      api: createApiSurface({ mcp: refuse, extra: createOAuthRoutes(app.container, settings) }),
      app: createAppSurface(app.container, settings),
      dashboards: async (ctx) => void (ctx.status = 404),
    }),
  );
  const server = http.createServer(koa.callback());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${port}`,
    settings,
    container: app.container,
    clock,
    hosts: { api: new URL(settings.baseUrl).host, app: new URL(settings.appUrl).host },
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await app.close();
    },
  };
}

/** A cookie-keeping client of the web app host, the way a browser without JavaScript uses it. */
export class WebClient {
  readonly cookies = new Map<string, string>();

  constructor(
    private readonly url: string,
    readonly host: string,
    private readonly origin = `http://${host}`,
  ) {}

  private remember(res: HttpResponse): HttpResponse {
    for (const line of res.headers['set-cookie'] ?? []) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (/Max-Age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  private get cookieHeader(): Record<string, string> {
    return this.cookies.size ? { cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') } : {};
  }

  async get(path: string): Promise<HttpResponse> {
    return this.remember(await request({ url: `${this.url}${path}`, host: this.host, headers: this.cookieHeader }));
  }

  async post(path: string, fields: Record<string, string>, headers: Record<string, string> = {}): Promise<HttpResponse> {
    const res = await request({
      url: `${this.url}${path}`,
      method: 'POST',
      host: this.host,
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: this.origin, ...this.cookieHeader, ...headers },
      body: new URLSearchParams(fields).toString(),
    });
    return this.remember(res);
  }
}

/** The CSRF token of the first form on a page. */
export function csrfOf(page: HttpResponse): string {
  const match = /name="csrf" value="([^"]+)"/.exec(page.text);
  if (!match) throw new Error(`no CSRF field on the page (status ${page.status})`);
  return match[1]!;
}

/**
 * Posts each form as `web` (with its CSRF token) and expects the very answer a missing dashboard gets: the
 * same 404 page, byte for byte, so a refused form cannot be told from a missing one.
 */
export async function expectEachAnsweredAsMissing(
  web: WebClient,
  missing: HttpResponse,
  token: string,
  forms: ReadonlyArray<readonly [string, Readonly<Record<string, string>>]>,
): Promise<void> {
  for (const [pathname, fields] of forms) {
    const res = await web.post(pathname, { csrf: token, ...fields });
    expect(res.status, pathname).to.equal(404);
    expect(res.text, pathname).to.equal(missing.text);
  }
}
