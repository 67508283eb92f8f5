import type { OwnerRef } from '../../domain/scope.js';

export const ListingVersions = Symbol.for('ListingVersions');
/**
 * A number that changes, in the same transaction, with anything an owner's listing shows
 * (docs/decisions/0046-list-answer-cache.md). A remembered listing may be answered only while the number read now is
 * the one read before the listing was built.
 */
export interface ListingVersions {
  /** The owner's current number, or null when there is none to go by (nothing may be remembered then). */
  current(owner: OwnerRef): Promise<string | null>;
}

/** For storage that keeps no such number (the in-memory adapters): listings are always built. */
export const NO_LISTING_VERSIONS: ListingVersions = { current: async () => null };
