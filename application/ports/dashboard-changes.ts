export interface DashboardChangeListener {
  /** Something an owner's listing shows changed and is committed: a listing read from now on sees it. */
  changed(ownerId: string): void;
  /** The channel went down or came back: changes may have gone unheard, drop everything remembered. */
  reset(): void;
}

export const DashboardChanges = Symbol.for('DashboardChanges');
/**
 * Where a process hears that an owner's dashboards changed, whichever process changed them. A cache of
 * listing answers may only answer from memory while `live` is true (docs/decisions.md, "Cached
 * list_dashboards answers"); the token cache's channel (token-invalidations.ts) works the same way.
 */
export interface DashboardChanges {
  /** True only while every committed change is guaranteed to be heard. */
  readonly live: boolean;
  subscribe(listener: DashboardChangeListener): void;
}

/** For storage only this process can change (in-memory adapters): what it does itself is all there is. */
export const OWN_CHANGES_ONLY: DashboardChanges = { live: true, subscribe: () => {} };

/** For storage other processes change but no channel reaches (the embedded database): never cache. */
export const CHANGES_UNHEARD: DashboardChanges = { live: false, subscribe: () => {} };
