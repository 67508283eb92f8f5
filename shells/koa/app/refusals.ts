import type Koa from 'koa';
import { isDomainError, type DomainError } from '../../../domain/errors.js';
import { httpStatusOf, type RequestKind } from '../http-status.js';

/** Answers a refused request: the route's page showing the refusal's text, with the table's status. */
export type RefusalPage = (ctx: Koa.Context, error: DomainError, status: number) => void | Promise<void>;

const REFUSAL = Symbol('refusal page');
type Named = { page: RefusalPage; kind: RequestKind };
const state = (ctx: Koa.Context) => ctx.state as { [REFUSAL]?: Named };

/**
 * Names the page a DomainError from the rest of this request shows. Routes call it before their use case
 * and let refusals propagate: the app surface's one catch (`answerRefusal`) renders the page with the
 * status from shells/koa/http-status.ts, so no route maps codes to statuses itself.
 */
export function onRefusal(ctx: Koa.Context, page: RefusalPage, kind: RequestKind = 'form'): void {
  state(ctx)[REFUSAL] = { page, kind };
}

/**
 * The app surface's handling of a DomainError: the page the route named, or `fallback` when it named none.
 * A page that reads again may be refused in turn (a refused form redraws a dashboard that was deleted
 * meanwhile): when it named the page for that before reading, that page answers the second refusal.
 */
export async function answerRefusal(ctx: Koa.Context, error: DomainError, fallback: RefusalPage): Promise<void> {
  const named = state(ctx)[REFUSAL];
  const { page, kind } = named ?? { page: fallback, kind: 'form' as const };
  try {
    await page(ctx, error, httpStatusOf(error, kind));
  } catch (pageError) {
    const renamed = state(ctx)[REFUSAL];
    if (!isDomainError(pageError) || !renamed || renamed === named) throw pageError;
    await renamed.page(ctx, pageError, httpStatusOf(pageError, renamed.kind));
  }
}
