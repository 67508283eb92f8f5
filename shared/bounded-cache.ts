/**
 * A small LRU map with an optional time-to-live and a budget. The dashboards host keeps its hot path
 * off the database with these; Map iteration order is insertion order, so re-inserting on a hit keeps
 * the least recently used entry first.
 */
export class BoundedCache<V> {
  private readonly entries = new Map<string, { value: V; expiresAt: number; cost: number }>();
  private used = 0;

  constructor(
    private readonly options: {
      /** Total budget, in entries unless `cost` says otherwise. */
      capacity: number;
      /** Milliseconds an entry stays valid; 0 disables the cache, Infinity never expires. */
      ttlMs: number;
      cost?: (value: V) => number;
    },
  ) {}

  get(key: string, nowMs: number): V | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    if (entry.expiresAt <= nowMs) {
      this.remove(key);
      return undefined;
    }
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value;
  }

  /** `expiresAtMs` shortens the entry's life below the time-to-live (never lengthens it). */
  set(key: string, value: V, nowMs: number, expiresAtMs = Infinity): void {
    if (this.options.ttlMs <= 0) return;
    const expiresAt = Math.min(nowMs + this.options.ttlMs, expiresAtMs);
    if (expiresAt <= nowMs) return;
    const cost = this.options.cost ? this.options.cost(value) : 1;
    if (cost > this.options.capacity) return;
    this.remove(key);
    this.entries.set(key, { value, expiresAt, cost });
    this.used += cost;
    for (const oldest of this.entries.keys()) {
      if (this.used <= this.options.capacity) break;
      this.remove(oldest);
    }
  }

  delete(key: string): void {
    this.remove(key);
  }

  /** Drops every entry whose value matches. */
  deleteWhere(matches: (value: V) => boolean): void {
    for (const [key, entry] of [...this.entries]) if (matches(entry.value)) this.remove(key);
  }

  clear(): void {
    this.entries.clear();
    this.used = 0;
  }

  get size(): number {
    return this.entries.size;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.used -= entry.cost;
  }
}
