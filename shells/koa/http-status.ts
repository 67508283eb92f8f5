import type { DomainError, ErrorCode } from '../../domain/errors.js';

/**
 * How a request reached the service, which decides how a refusal reads as HTTP:
 * - `form`: something the user composed (a form post, a page, an API call): the status says what was wrong
 *   with it, so a client or a person can act on it.
 * - `link`: a link the browser followed on the user's behalf (the upstream provider sending the browser
 *   back, a dashboard's viewer sign-in link): nothing the user sent can be corrected, so every refusal is
 *   400, except a service that could not be reached (503), which is worth retrying.
 * - `owned`: a page or form at the address of something that may be the user's (a dashboard's pages in
 *   the web app): as `form`, except that someone else's answers 404 like one that does not exist, so the
 *   address tells nobody what exists.
 */
export type RequestKind = 'form' | 'link' | 'owned';

/**
 * The one DomainError → HTTP status table of the Koa surfaces (MCP tools map theirs in
 * shells/koa/mcp/tool-registry.ts). Every code is listed, so a new code cannot reach a surface unmapped.
 */
const HTTP_STATUS: Readonly<Record<ErrorCode, Readonly<Record<RequestKind, number>>>> = {
  invalid_argument: { form: 400, link: 400, owned: 400 },
  payload_too_large: { form: 413, link: 400, owned: 413 },
  not_found: { form: 404, link: 400, owned: 404 },
  scope_refused: { form: 403, link: 400, owned: 403 },
  conflict: { form: 409, link: 400, owned: 409 },
  limit_reached: { form: 409, link: 400, owned: 409 },
  rate_limited: { form: 429, link: 400, owned: 429 },
  plan_required: { form: 402, link: 400, owned: 402 },
  forbidden: { form: 403, link: 400, owned: 404 },
  unauthenticated: { form: 401, link: 400, owned: 401 },
  unavailable: { form: 503, link: 503, owned: 503 },
};

export const httpStatusOf = (error: DomainError, kind: RequestKind = 'form'): number => HTTP_STATUS[error.code][kind];
