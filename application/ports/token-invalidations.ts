/**
 * A committed change that may end access: a grant's (revoked, ended, altered, deleted), a user's, or a share
 * link's (paused, revoked, its dashboard deleted).
 */
export type TokenInvalidation = { kind: 'grant'; id: string } | { kind: 'user'; id: string } | { kind: 'share'; id: string };

export interface TokenInvalidationListener {
  /** Called after the change is committed, so a lookup made from now on reads it. */
  invalidated(change: TokenInvalidation): void;
  /** The channel went down or came back: changes may have gone unheard, drop everything remembered. */
  reset(): void;
}

export const TokenInvalidations = Symbol.for('TokenInvalidations');
/**
 * Where a process hears of changes that kill tokens, whichever process made them. A cache of verified
 * tokens may only answer from memory while `live` is true (docs/decisions/0038-token-cache.md).
 */
export interface TokenInvalidations {
  /** True only while every committed change is guaranteed to be heard. */
  readonly live: boolean;
  subscribe(listener: TokenInvalidationListener): void;
}

/** For storage only this process can change (in-memory adapters): what it does itself is all there is. */
export const IN_PROCESS_ONLY: TokenInvalidations = { live: true, subscribe: () => {} };

/** For storage other processes change but no channel reaches (the embedded database): never cache. */
export const UNHEARD: TokenInvalidations = { live: false, subscribe: () => {} };
