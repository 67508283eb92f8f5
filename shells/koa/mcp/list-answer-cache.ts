import { BoundedCache } from '../../../shared/bounded-cache.js';
import type { ListQuery } from '../../../application/dashboards/list-dashboards.js';
import type { ListingVersions } from '../../../application/ports/listing-versions.js';
import type { ListCacheOutcome } from '../../../application/ports/telemetry.js';
import { ownerOf, subdomainOf, type Target } from '../../../domain/scope.js';
import { SerializedToolResult, type ToolResult } from './tool-registry.js';

interface Entry {
  /** The owner's listing version read before the answer was built. */
  version: string;
  result: SerializedToolResult;
}

/**
 * This process's remembered `list_dashboards` answers, already serialised
 * (docs/decisions/0046-list-answer-cache.md). Keyed by the resolved target (owner, and the subdomain and workspace slug its
 * URLs carry) and the arguments that shape a page; the caller resolves the target, so authorisation and the
 * membership check run on every call, before this is consulted. Bounded by bytes, least recently used first.
 *
 * Every call reads the owner's listing version (one primary-key lookup) and answers from memory only if the
 * entry was built under that same version. The version is read before the listing is built, so a change
 * committed in between makes the entry stale at once rather than hiding in it. Whoever made the change, on
 * whichever instance, the next call sees it; only successful answers are kept, so a refusal is never stale.
 * Calls for one owner share version reads (FreshReads), so a busy owner costs about one lookup per round trip.
 */
export class ListAnswerCache {
  private readonly entries: BoundedCache<Entry>;
  private readonly versionReads = new FreshReads<string | null>();

  constructor(
    private readonly versions: ListingVersions,
    /** Total size of the remembered answers in bytes; 0 turns the cache off. */
    private readonly capacityBytes: number,
    private readonly counted: (outcome: ListCacheOutcome) => void = () => undefined,
  ) {
    this.entries = new BoundedCache<Entry>({ capacity: capacityBytes, ttlMs: capacityBytes > 0 ? Infinity : 0, cost: (entry) => entry.result.tail.length });
  }

  /** The answer for `target`'s listing asked by `query`: remembered, or built by `build` (and remembered). */
  async answer(target: Target, query: ListQuery, build: () => Promise<ToolResult>): Promise<ToolResult> {
    const owner = ownerOf(target);
    const version = this.capacityBytes > 0 ? await this.versionReads.read(owner.id, () => this.versions.current(owner)) : null;
    if (version === null) {
      this.counted('bypass');
      return build();
    }
    const key = JSON.stringify([target.kind, owner.id, subdomainOf(target), query.cursor, query.limit, query.slug, query.tag]);
    const hit = this.entries.get(key, 0);
    if (hit?.version === version) {
      this.counted('hit');
      return hit.result;
    }
    const result = SerializedToolResult.of(await build());
    this.counted('miss');
    if (!result.isError) this.entries.set(key, { version, result }, 0);
    return result;
  }

  /** How many answers are remembered, stale ones not yet replaced included (for tests). */
  get size(): number {
    return this.entries.size;
  }
}

/**
 * Shares reads among concurrent callers without ever handing one a read that started before it asked: a
 * caller joins the read queued behind the one under way (sent when that one ends), or starts one if none is
 * under way. So every answer was read after its caller arrived, which keeps "a change committed before the
 * call is seen by the call", and a burst of calls for one key costs about one read per round trip.
 */
export class FreshReads<V> {
  private readonly states = new Map<string, { running: Promise<V> | null; queued: Promise<V> | null }>();

  read(key: string, fetch: () => Promise<V>): Promise<V> {
    let state = this.states.get(key);
    if (!state) this.states.set(key, (state = { running: null, queued: null }));
    if (!state.running) return this.run(key, state, fetch);
    if (state.queued) return state.queued;
    const queuedFor = state;
    const settled = () => {
      queuedFor.queued = null;
      return this.run(key, queuedFor, fetch);
    };
    return (queuedFor.queued = state.running.then(settled, settled));
  }

  /** Keys with a read under way or queued (for tests). */
  get size(): number {
    return this.states.size;
  }

  private run(key: string, state: { running: Promise<V> | null; queued: Promise<V> | null }, fetch: () => Promise<V>): Promise<V> {
    const running = fetch();
    state.running = running;
    const done = () => {
      if (state.running !== running) return;
      state.running = null;
      if (!state.queued) this.states.delete(key);
    };
    running.then(done, done);
    return running;
  }
}
