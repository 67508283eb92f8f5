import Router from '@koa/router';
import type { Container } from 'inversify';
import type Koa from 'koa';
import { StartAuthorization } from '../../../application/auth/authorize.js';
import { oauthUrls } from '../../../application/auth/endpoints.js';
import { ExchangeToken } from '../../../application/auth/exchange-token.js';
import { RegisterClient } from '../../../application/auth/register-client.js';
import type { Settings } from '../../../application/ports/settings.js';
import { isDomainError } from '../../../domain/errors.js';
import { GRANT_TYPES } from '../../../domain/oauth-clients.js';
import { isOAuthError, MCP_SCOPE, OAuthError } from '../../../domain/oauth.js';
import { FORM_LIMIT_BYTES, parseForm } from '../app/forms.js';
import { BodyTooLarge, readBody } from '../../http/request-body.js';
import { messagePage } from '../app/pages.js';
import { sendPage } from '../app/web-security.js';
import { httpStatusOf } from '../http-status.js';

export interface OAuthRoutesOptions {
  logger?: { error(details: object, message: string): void };
}

/** The two discovery documents (RFC 8414, RFC 9728): authorization server and protected resource metadata. */
export function discoveryDocuments(settings: Settings) {
  const urls = oauthUrls(settings);
  return {
    authorizationServer: {
      issuer: urls.issuer,
      authorization_endpoint: urls.authorization,
      token_endpoint: urls.token,
      registration_endpoint: urls.registration,
      scopes_supported: [MCP_SCOPE],
      response_types_supported: ['code'],
      response_modes_supported: ['query'],
      grant_types_supported: [...GRANT_TYPES],
      token_endpoint_auth_methods_supported: ['none'],
      code_challenge_methods_supported: ['S256'],
      authorization_response_iss_parameter_supported: true,
      // A client_id may also be the https URL of the client's metadata document (domain/client-metadata.ts).
      client_id_metadata_document_supported: true,
    },
    protectedResource: {
      resource: urls.resource,
      authorization_servers: [urls.issuer],
      scopes_supported: [MCP_SCOPE],
      bearer_methods_supported: ['header'],
      resource_name: settings.serviceName,
    },
  };
}

const json = (ctx: Koa.Context, status: number, body: unknown) => {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(body);
};

/** Token and registration answers are never cached (RFC 6749 §5.1). */
const noStore = (ctx: Koa.Context) => {
  ctx.set('Cache-Control', 'no-store');
  ctx.set('Pragma', 'no-cache');
};

const oauthErrorBody = (error: OAuthError) => ({ error: error.error, error_description: error.description });

/**
 * These answers hold nothing a cookie could unlock (public clients, PKCE), so browser-based MCP
 * clients may call them from any origin.
 */
const cors = (ctx: Koa.Context) => {
  ctx.set('Access-Control-Allow-Origin', '*');
  ctx.set('Access-Control-Allow-Headers', 'authorization, content-type, mcp-protocol-version');
  ctx.set('Access-Control-Allow-Methods', 'GET, POST, OPTIONS');
  ctx.set('Access-Control-Max-Age', '600');
};

/** The client id of an HTTP Basic header (`client_id:` with an empty secret), as some clients send it. */
function basicClientId(header: string): string | undefined {
  const match = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const id = decoded.includes(':') ? decoded.slice(0, decoded.indexOf(':')) : decoded;
  try {
    return decodeURIComponent(id) || undefined;
  } catch {
    throw new OAuthError('invalid_client', 'the Authorization header is malformed');
  }
}

/** A JSON token request (some clients send one): its string members only. */
function jsonParams(text: string): Record<string, string> {
  const parsed: unknown = JSON.parse(text);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new SyntaxError('not an object');
  return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

/**
 * The authorization server on the API host: `/.well-known/oauth-authorization-server`,
 * `/.well-known/oauth-protected-resource`, `POST /register`, `GET /authorize`, `POST /token`.
 * Anything else falls through (the API surface answers 404).
 */
export function createOAuthRoutes(container: Container, settings: Settings, options: OAuthRoutesOptions = {}): Koa.Middleware {
  const register = container.get(RegisterClient);
  const authorize = container.get(StartAuthorization);
  const exchange = container.get(ExchangeToken);
  const documents = discoveryDocuments(settings);
  const router = new Router();

  discoveryRoutes(router, documents);

  router.post('/register', async (ctx) => {
    cors(ctx);
    noStore(ctx);
    let body: unknown = null;
    try {
      body = JSON.parse(await readBody(ctx.req, FORM_LIMIT_BYTES));
    } catch {
      // Counted and refused by the use case like any other malformed registration.
    }
    json(ctx, 201, await register.execute(body, ctx.ip));
  });

  router.get('/authorize', async (ctx) => {
    const outcome = await authorize.execute(ctx.query, ctx.ip);
    if (outcome.kind !== 'refuse') {
      ctx.set('Cache-Control', 'no-store');
      ctx.redirect(outcome.location);
      return;
    }
    // Client ID metadata document refusals arrive here too, as the outcome's text: told to the browser.
    sendPage(ctx, 400, messagePage(settings.serviceDisplayName, { title: 'This authorization request cannot be used', message: outcome.message }));
  });

  router.post('/token', async (ctx) => {
    cors(ctx);
    noStore(ctx);
    const text = await readBody(ctx.req, FORM_LIMIT_BYTES);
    const params = ctx.is('application/json') ? jsonParams(text) : parseForm(text);
    json(ctx, 200, await exchange.execute(params, basicClientId(ctx.get('authorization'))));
  });

  const routes = router.routes() as Koa.Middleware;
  return async (ctx, next) => {
    try {
      await routes(ctx, next);
    } catch (error) {
      answerFailure(ctx, error, settings, options);
    }
  };
}

/** The two discovery documents, and the CORS preflights of every endpoint a browser client calls. */
function discoveryRoutes(router: Router, documents: ReturnType<typeof discoveryDocuments>): void {
  const document = (body: object) => async (ctx: Koa.Context) => {
    cors(ctx);
    ctx.set('Cache-Control', 'public, max-age=300');
    json(ctx, 200, body);
  };
  router.get('/.well-known/oauth-authorization-server', document(documents.authorizationServer));
  router.get('/.well-known/oauth-protected-resource', document(documents.protectedResource));
  for (const path of ['/.well-known/oauth-authorization-server', '/.well-known/oauth-protected-resource', '/register', '/token']) {
    router.options(path, async (ctx) => {
      cors(ctx);
      ctx.status = 204;
    });
  }
}

/** What each endpoint's log line calls a request of its own that failed. */
const FAILED_REQUEST: Readonly<Record<string, string>> = {
  '/register': 'client registration failed',
  '/authorize': 'authorization request failed',
  '/token': 'token request failed',
};

/**
 * The OAuth endpoints' one catch. `/authorize` is a page the browser shows, so all it can answer is a
 * page; the others answer the client in JSON: an OAuthError as RFC 6749's error body, a DomainError
 * with the status from shells/koa/http-status.ts (a limited client is told when to retry), an unreadable
 * body as `invalid_request`, anything else as `server_error`, logged.
 */
function answerFailure(ctx: Koa.Context, error: unknown, settings: Settings, options: OAuthRoutesOptions): void {
  const logFailure = () => options.logger?.error({ err: error }, FAILED_REQUEST[ctx.path] ?? 'OAuth request failed');
  if (ctx.path === '/authorize') {
    logFailure();
    const message = `${settings.serviceDisplayName} could not start the authorization. Try again from your client.`;
    return sendPage(ctx, 500, messagePage(settings.serviceDisplayName, { title: 'Something went wrong', message }));
  }
  if (isOAuthError(error)) return json(ctx, error.status, oauthErrorBody(error));
  if (isDomainError(error)) {
    if (error.code === 'rate_limited') ctx.set('retry-after', '60');
    return json(ctx, httpStatusOf(error), { error: error.code, error_description: error.message });
  }
  if (error instanceof SyntaxError || error instanceof BodyTooLarge) {
    return json(ctx, 400, { error: 'invalid_request', error_description: 'the request body is not a valid token request' });
  }
  logFailure();
  noStore(ctx);
  json(ctx, 500, { error: 'server_error', error_description: 'the authorization server failed; retry shortly' });
}
