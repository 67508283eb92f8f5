import { BoundedCache } from '../../../application/hosting/bounded-cache.js';
import type { ListQuery } from '../../../application/dashboards/list-dashboards.js';
import type { DashboardChanges } from '../../../application/ports/dashboard-changes.js';
import type { ListCacheOutcome } from '../../../application/ports/telemetry.js';
import { ownerOf, subdomainOf, type Target } from '../../../domain/scope.js';
import { SerializedToolResult, type ToolResult } from './tool-registry.js';

/** Owners whose last change is remembered for the race check before everything is dropped at once. */
const OWNERS_TRACKED = 10_000;

interface Entry {
  ownerId: string;
  /** The event count when the read that built it began. */
  stamp: number;
  result: SerializedToolResult;
}

/**
 * This process's remembered `list_dashboards` answers, already serialised (docs/decisions.md, "Cached
 * list_dashboards answers"). Keyed by the resolved target (owner, and the subdomain and workspace slug its
 * URLs carry) and the arguments that shape a page; the caller resolves the target, so authorisation and
 * the membership check run on every call, before this is consulted. Bounded by bytes, least recently used
 * first. Answers from memory only while the change channel is live (fail closed, like the token cache);
 * only successful answers are remembered, so a refusal is never stale.
 *
 * Invalidation is by owner and lazy: a change heard for an owner records the event count, and an entry
 * built from a read that began before it is stale. A read that began before a change (or a channel reset)
 * and ends after it is not remembered, since it may have read the rows from before the commit.
 */
export class ListAnswerCache {
  private readonly entries: BoundedCache<Entry>;
  private events = 0;
  private resetAt = 0;
  private readonly changedAt = new Map<string, number>();

  constructor(
    private readonly changes: DashboardChanges,
    /** Total size of the remembered answers in bytes; 0 turns the cache off. */
    private readonly capacityBytes: number,
    private readonly counted: (outcome: ListCacheOutcome) => void = () => undefined,
  ) {
    this.entries = new BoundedCache<Entry>({ capacity: capacityBytes, ttlMs: capacityBytes > 0 ? Infinity : 0, cost: (entry) => entry.result.tail.length });
    changes.subscribe({ changed: (ownerId) => this.changed(ownerId), reset: () => this.clear() });
  }

  /** The answer for `target`'s listing asked by `query`: remembered, or built by `build` (and remembered when nothing changed meanwhile). */
  async answer(target: Target, query: ListQuery, build: () => Promise<ToolResult>): Promise<ToolResult> {
    if (this.capacityBytes <= 0 || !this.changes.live) {
      this.counted('bypass');
      return build();
    }
    const ownerId = ownerOf(target).id;
    const key = JSON.stringify([target.kind, ownerId, subdomainOf(target), query.cursor, query.limit, query.slug, query.tag]);
    const hit = this.entries.get(key, 0);
    if (hit) {
      if (this.fresh(hit)) {
        this.counted('hit');
        return hit.result;
      }
      this.entries.delete(key);
    }
    const stamp = this.events;
    const result = SerializedToolResult.of(await build());
    this.counted('miss');
    if (!result.isError && this.changes.live && this.fresh({ ownerId, stamp })) this.entries.set(key, { ownerId, stamp, result }, 0);
    return result;
  }

  /** Forgets an owner's answers; called once the change is committed (by the channel, or by this process's own write). */
  changed(ownerId: string): void {
    if (this.changedAt.size >= OWNERS_TRACKED && !this.changedAt.has(ownerId)) return this.clear();
    this.changedAt.set(ownerId, ++this.events);
  }

  clear(): void {
    this.resetAt = ++this.events;
    this.changedAt.clear();
    this.entries.clear();
  }

  /** How many answers are remembered, stale ones not yet dropped included (for tests). */
  get size(): number {
    return this.entries.size;
  }

  /** No change to the owner, and no reset, since the read behind `entry` began. */
  private fresh(entry: Pick<Entry, 'ownerId' | 'stamp'>): boolean {
    return entry.stamp >= this.resetAt && entry.stamp >= (this.changedAt.get(entry.ownerId) ?? 0);
  }
}
