/**
 * Waiting work, taken fairly by owner: at most one item of each owner in flight, and owners take turns
 * (the owner served last goes to the back), so one owner's queue of slow queries never delays another's.
 */
export class OwnerFairQueue<T> {
  /** Owners in turn order, each with its waiting items in arrival order. */
  private readonly waiting = new Map<string, T[]>();
  private readonly inFlight = new Set<string>();

  push(owner: string, item: T): void {
    const items = this.waiting.get(owner);
    if (items) items.push(item);
    else this.waiting.set(owner, [item]);
  }

  /** The next item of the first owner in turn with nothing in flight; that owner is then in flight. */
  take(): { owner: string; item: T } | undefined {
    for (const [owner, items] of this.waiting) {
      if (this.inFlight.has(owner)) continue;
      const item = items.shift()!;
      this.waiting.delete(owner);
      if (items.length) this.waiting.set(owner, items); // to the back of the turn order
      this.inFlight.add(owner);
      return { owner, item };
    }
    return undefined;
  }

  done(owner: string): void {
    this.inFlight.delete(owner);
  }

  isInFlight(owner: string): boolean {
    return this.inFlight.has(owner);
  }
}
