import type Koa from 'koa';

export interface ApiSurfaceOptions {
  /** The MCP endpoint (`mcpMiddleware` of endpoint.ts); it answers /mcp and /mcp/ and passes everything else on. */
  mcp: Koa.Middleware;
  /** Further API routes, e.g. the OAuth router (`/.well-known/…`, `/register`, `/authorize`, `/token`). */
  extra?: Koa.Middleware;
}

const healthz: Koa.Middleware = async (ctx, next) => {
  if (ctx.path !== '/healthz' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
  ctx.type = 'text/plain';
  ctx.body = 'ok';
};

/** Anything no route claimed answers 404 Not Found, as plain text. */
const notFound: Koa.Middleware = async (ctx) => {
  ctx.status = 404;
  ctx.type = 'text/plain';
  ctx.body = 'Not Found';
};

/** The API host (`{base_url}`): /healthz, the MCP endpoint, the extra routes, and 404 for the rest. */
export function createApiSurface(options: ApiSurfaceOptions): Koa.Middleware {
  const chain: Koa.Middleware[] = [healthz, options.mcp];
  if (options.extra) chain.push(options.extra);
  chain.push(notFound);
  // The last step never calls next: the API host owns every path it is given.
  return (ctx) => {
    const run = (index: number): Promise<void> => Promise.resolve(chain[index]!(ctx, () => run(index + 1)));
    return run(0);
  };
}
