import { inject, injectable } from 'inversify';
import { invalid } from '../../domain/errors.js';
import { validateSlug } from '../../domain/names.js';
import { ownerOf, type Target } from '../../domain/scope.js';
import { DashboardStore } from '../ports/dashboard-store.js';
import type { Principal } from '../ports/token-verifier.js';
import { ScopeResolver } from '../scope-resolver.js';
import { noDashboardInAccount, type CurrentDashboard } from '../dashboard-lookup.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/** One page of a listing: the target's dashboards with their current versions, and where the next page starts. */
export interface DashboardPage {
  target: Target;
  dashboards: CurrentDashboard[];
  /** null on the last page. */
  nextCursor: string | null;
}

/** Opaque keyset cursor: the last slug of the previous page. */
export function encodeCursor(afterSlug: string): string {
  return Buffer.from(JSON.stringify({ after: afterSlug }), 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string | null | undefined): string | undefined {
  if (cursor === undefined || cursor === null || cursor === '') return undefined;
  const refusal = invalid('cursor is not valid; pass the next_cursor from the previous answer, or omit it to start over');
  try {
    const parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as { after?: unknown };
    if (typeof parsed.after !== 'string' || !/^[a-z0-9-]{1,64}$/.test(parsed.after)) throw refusal;
    return parsed.after;
  } catch {
    throw refusal;
  }
}

/**
 * What a listing asks for. The tool edge has already checked each value's JSON type and `limit`'s range
 * (its input class, shells/koa/mcp/tools/dashboard-inputs.ts); `workspace` stays `unknown` because the grant-lock rules word
 * that refusal themselves. The cursor's content, the slug's shape and an empty tag are refused here.
 */
export interface ListQuery {
  workspace?: unknown;
  cursor?: string | null;
  limit?: number | null;
  slug?: string | null;
  tag?: string | null;
}

/** list_dashboards and resources/list: one keyset-paginated listing of the target's dashboards. */
@injectable()
export class ListDashboards {
  constructor(
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(ScopeResolver) private readonly scopes: ScopeResolver,
  ) {}

  async execute(principal: Principal, query: ListQuery): Promise<DashboardPage> {
    return this.forTarget(await this.scopes.resolve(principal, query.workspace), query);
  }

  /**
   * The listing of a target already resolved by ScopeResolver for the caller (the MCP shell resolves
   * first, to key its remembered answers by the target: docs/decisions/0046-list-answer-cache.md).
   */
  async forTarget(target: Target, query: ListQuery): Promise<DashboardPage> {
    const afterSlug = decodeCursor(query.cursor);
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const slug = query.slug === undefined || query.slug === null ? undefined : validateSlug(query.slug);
    if (query.tag === '') throw invalid('tag must be a non-empty string');
    const tag = query.tag ?? undefined;
    const records = await this.store.listWithCurrent(ownerOf(target), { afterSlug, limit: limit + 1, tag, slug });
    if (slug && records.length === 0) throw noDashboardInAccount(slug);
    const page = records.slice(0, limit);
    const dashboards: CurrentDashboard[] = [];
    for (const { dashboard, current } of page) {
      if (current) dashboards.push({ dashboard, current });
    }
    const nextCursor = records.length > limit ? encodeCursor(page[page.length - 1].dashboard.slug) : null;
    return { target, dashboards, nextCursor };
  }
}
