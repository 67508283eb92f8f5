export const HostingOptions = Symbol.for('HostingOptions');
/** Tunables of the dashboards host; the composition root binds DEFAULT_HOSTING_OPTIONS. */
export interface HostingOptions {
  /**
   * How long resolved subdomains, dashboards, manifests, memberships and viewer sessions are reused
   * without asking the store. Publishes, renames and visibility changes show within this time on
   * every instance.
   */
  metadataTtlMs: number;
  /** Budget of the file-bytes cache (content-addressed, so entries never go stale). */
  fileCacheBytes: number;
  /** Most public dashboards the `/` listing of an account shows. */
  listingLimit: number;
  /** Life of a one-time viewer ticket (web app → dashboards host). */
  ticketTtlMs: number;
  /** Life of the viewer cookie a ticket is exchanged for. */
  viewerSessionTtlMs: number;
  /** Pages one dashboard may draw per minute for parameter values not yet cached (each runs its queries). */
  paramRendersPerMinute: number;
  /** Parameter renders kept per dashboard, the newest first. */
  paramRendersKept: number;
}

export const DEFAULT_HOSTING_OPTIONS: HostingOptions = {
  metadataTtlMs: 1_000,
  fileCacheBytes: 64 * 1024 * 1024,
  listingLimit: 500,
  ticketTtlMs: 120_000,
  viewerSessionTtlMs: 12 * 60 * 60 * 1000,
  paramRendersPerMinute: 30,
  paramRendersKept: 200,
};
