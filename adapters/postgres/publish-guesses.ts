import type { OwnerRef } from '../../domain/scope.js';
import type { PublishState, PublishWrite, StoredFile } from '../../application/ports/dashboard-store.js';
import { BoundedCache } from '../../shared/bounded-cache.js';

/** A slug's state as a publish may assume it without reading, and the row version `dashpub_publish` checks it by. */
export interface Guess {
  state: PublishState;
  rowVersion: string | null;
}

/** Slugs remembered per process; a few hundred bytes each (the dashboard row and its current manifest). */
const REMEMBERED_SLUGS = 2_000;
/** Above this many bytes a publish to a slug it knows nothing of reads first: a wrong guess would send them twice. */
export const GUESS_NEW_MAX_BYTES = 64 * 1024;

const NOTHING_THERE: PublishState = Object.freeze({ alias: null, dashboard: null, current: null });

/**
 * What this process last wrote at each slug, so that a publish can go straight to `dashpub_publish` with
 * the state it expects (one round trip instead of a read and a write). Only ever a guess: the function
 * checks it under the owner's lock (no alias, and no dashboard or the very row version guessed) and writes
 * nothing when it is wrong, and the store then reads and decides again
 * (docs/decisions/0037-publish-guesses.md). So nothing here needs invalidating across processes; a stale entry costs
 * one short call.
 *
 * A slug never seen is guessed to be free when the files are small: publishing to a new slug is what a
 * first publish does, and being wrong costs one call that stops at the lock's check. Refreshable
 * dashboards are not remembered (their spec can be large); their republishes read first.
 */
export class PublishGuesses {
  private readonly known = new BoundedCache<Guess>({ capacity: REMEMBERED_SLUGS, ttlMs: Infinity });

  guess(owner: OwnerRef, slug: string, files: StoredFile[]): Guess | null {
    const known = this.known.get(key(owner, slug), 0);
    if (known) return known;
    const bytes = files.reduce((sum, file) => sum + file.bytes.byteLength, 0);
    return bytes <= GUESS_NEW_MAX_BYTES ? { state: NOTHING_THERE, rowVersion: null } : null;
  }

  /** After a write landed: the slug now holds `write` at `rowVersion`, its version numbered `seq`. */
  wrote(owner: OwnerRef, slug: string, write: PublishWrite, seq: number, rowVersion: string): void {
    if (write.version.spec !== null) {
      this.forget(owner, slug);
      return;
    }
    const state: PublishState = { alias: null, dashboard: { ...write.dashboard }, current: { ...write.version, seq } };
    this.known.set(key(owner, slug), { state, rowVersion }, 0);
  }

  forget(owner: OwnerRef, slug: string): void {
    this.known.delete(key(owner, slug));
  }
}

const key = (owner: OwnerRef, slug: string) => `${owner.kind}:${owner.id}:${slug}`;
