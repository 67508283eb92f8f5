import { inject, injectable } from 'inversify';
import type { OwnerRef } from '../../domain/scope.js';
import { AccountStore } from '../ports/account-store.js';
import { Clock } from '../ports/clock.js';
import { DashboardStore, type DashboardRecord, type FileEntry, type Manifest } from '../ports/dashboard-store.js';
import { BoundedCache } from '../../shared/bounded-cache.js';
import { HostingOptions } from './hosting-options.js';
import { ServedFiles } from './served-files.js';

export interface Site {
  subdomain: string;
  owner: OwnerRef;
}

export type SlugLookup =
  | { kind: 'dashboard'; dashboard: DashboardRecord; manifest: Manifest }
  /** An alias left by a rename; `dashboard` is the one it points at, under its current slug. */
  | { kind: 'alias'; dashboard: DashboardRecord };

export interface ListedDashboard {
  slug: string;
  name: string;
  updatedAt: Date;
}

/** A shared load and, once it settles, its value (so the hot path can read it without awaiting). */
interface Loading<T> {
  promise: Promise<T>;
  done: boolean;
  value: T | undefined;
  /** When the load began: the value reflects the store as of then. */
  startedAt: number;
  load: () => Promise<T>;
  refreshing: boolean;
}

export interface FileBytes {
  body: Buffer;
  /** Strong validator: the content hash, quoted. */
  etag: string;
}

/**
 * The read side of the dashboards host with its caches. Metadata is reused for `metadataTtlMs`
 * (an accepted staleness: a change shows within that time on every instance, with no invalidation
 * traffic between instances); bytes are cached by hash and never go stale. Loads are shared while in
 * flight, so a burst of requests for a cold entry makes one store round trip, and an entry in use is
 * reloaded in the background shortly before it expires, so steady traffic never waits on the store.
 */
@injectable()
export class HostingCatalog {
  private readonly sites: BoundedCache<Loading<Site | null>>;
  private readonly slugs: BoundedCache<Loading<SlugLookup | null>>;
  private readonly listings: BoundedCache<Loading<ListedDashboard[]>>;
  private readonly members: BoundedCache<Loading<boolean>>;
  private readonly pinned: BoundedCache<Loading<Manifest | null>>;
  private readonly files: BoundedCache<FileBytes>;
  private readonly loadingFiles = new Map<string, Promise<FileBytes | null>>();

  constructor(
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(ServedFiles) private readonly served: ServedFiles,
    @inject(Clock) private readonly clock: Clock,
    @inject(HostingOptions) private readonly options: HostingOptions,
  ) {
    const ttlMs = options.metadataTtlMs;
    this.sites = new BoundedCache({ capacity: 10_000, ttlMs });
    this.slugs = new BoundedCache({ capacity: 20_000, ttlMs });
    this.listings = new BoundedCache({ capacity: 1_000, ttlMs });
    this.members = new BoundedCache({ capacity: 20_000, ttlMs });
    this.pinned = new BoundedCache({ capacity: 5_000, ttlMs });
    this.files = new BoundedCache({ capacity: options.fileCacheBytes, ttlMs: Infinity, cost: (f) => f.body.byteLength });
  }

  site(subdomain: string): Promise<Site | null> {
    return this.cached(this.sites, subdomain, async () => {
      const owner = await this.accounts.findSubdomainOwner(subdomain);
      if (!owner) return null;
      return {
        subdomain,
        owner: owner.kind === 'user' ? { kind: 'user', id: owner.user.id } : { kind: 'workspace', id: owner.workspace.id },
      };
    });
  }

  /** The cached answer of `site`, without waiting: undefined when not cached (or still loading). */
  peekSite(subdomain: string): Site | null | undefined {
    return this.peek(this.sites, subdomain);
  }

  peekLookup(site: Site, slug: string): SlugLookup | null | undefined {
    return this.peek(this.slugs, `${site.owner.kind}:${site.owner.id}/${slug}`);
  }

  peekPinned(dashboardId: string, versionId: string): Manifest | null | undefined {
    return this.peek(this.pinned, `${dashboardId}/${versionId}`);
  }

  peekFile(sha256: string): FileBytes | undefined {
    return this.files.get(sha256, 0);
  }

  lookup(site: Site, slug: string): Promise<SlugLookup | null> {
    return this.cached(this.slugs, `${site.owner.kind}:${site.owner.id}/${slug}`, async () => {
      const dashboard = await this.store.findDashboard(site.owner, slug);
      if (dashboard) {
        const manifest = await this.served.manifest(dashboard);
        return manifest ? { kind: 'dashboard', dashboard, manifest } : null;
      }
      const alias = await this.store.findAlias(site.owner, slug);
      if (!alias) return null;
      const target = await this.store.findDashboardById(alias.dashboardId);
      return target ? { kind: 'alias', dashboard: target } : null;
    });
  }

  /** The account's public dashboards in slug order, at most `listingLimit`. */
  publicListing(site: Site): Promise<ListedDashboard[]> {
    return this.cached(this.listings, `${site.owner.kind}:${site.owner.id}`, async () => {
      const listed: ListedDashboard[] = [];
      let afterSlug: string | undefined;
      for (;;) {
        const page = await this.store.list(site.owner, { afterSlug, limit: 100 });
        for (const d of page) {
          if (d.visibility === 'public') listed.push({ slug: d.slug, name: d.name, updatedAt: d.updatedAt });
        }
        if (page.length < 100 || listed.length >= this.options.listingLimit) break;
        afterSlug = page[page.length - 1]!.slug;
      }
      return listed.slice(0, this.options.listingLimit);
    });
  }

  /** A version's own files, as a share link pinned to it serves them: a snapshot, with no later live render. */
  pinnedManifest(dashboardId: string, versionId: string): Promise<Manifest | null> {
    return this.cached(this.pinned, `${dashboardId}/${versionId}`, async () => (await this.store.getVersionSummary(dashboardId, versionId))?.files ?? null);
  }

  /** Owners see their personal dashboards; members see their workspace's. */
  canView(site: Site, userId: string): Promise<boolean> {
    if (site.owner.kind === 'user') return Promise.resolve(site.owner.id === userId);
    const workspaceId = site.owner.id;
    return this.cached(this.members, `${workspaceId}/${userId}`, async () => {
      return (await this.accounts.findMembership(workspaceId, userId)) !== null;
    });
  }

  async file(entry: FileEntry): Promise<FileBytes | null> {
    const hit = this.files.get(entry.sha256, 0);
    if (hit) return hit;
    let loading = this.loadingFiles.get(entry.sha256);
    if (!loading) {
      loading = this.served.bytes(entry.sha256).then((bytes) => {
        if (!bytes) return null;
        const body = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
        const file = { body, etag: `"${entry.sha256}"` };
        this.files.set(entry.sha256, file, 0);
        return file;
      });
      this.loadingFiles.set(entry.sha256, loading);
      const forget = () => this.loadingFiles.delete(entry.sha256);
      loading.then(forget, forget);
    }
    return loading;
  }

  private cached<T>(cache: BoundedCache<Loading<T>>, key: string, load: () => Promise<T>): Promise<T> {
    const now = this.clock.now().getTime();
    const hit = cache.get(key, now);
    if (hit) {
      this.refreshAhead(cache, key, hit, now);
      return hit.promise;
    }
    const entry: Loading<T> = { promise: load(), done: false, value: undefined, startedAt: now, load, refreshing: false };
    cache.set(key, entry, now);
    entry.promise.then(
      (value) => {
        entry.value = value;
        entry.done = true;
      },
      // A failed load must not be remembered: the next request tries the store again.
      () => {
        if (cache.get(key, now) === entry) cache.delete(key);
      },
    );
    return entry.promise;
  }

  private peek<T>(cache: BoundedCache<Loading<T>>, key: string): T | undefined {
    const now = this.clock.now().getTime();
    const hit = cache.get(key, now);
    if (!hit?.done) return undefined;
    this.refreshAhead(cache, key, hit, now);
    return hit.value;
  }

  /** Past three quarters of its life, a used entry starts one background reload; until it lands the old value serves. */
  private refreshAhead<T>(cache: BoundedCache<Loading<T>>, key: string, entry: Loading<T>, now: number): void {
    if (!entry.done || entry.refreshing || now - entry.startedAt < this.options.metadataTtlMs * 0.75) return;
    entry.refreshing = true;
    entry.load().then(
      (value) => {
        const fresh: Loading<T> = { promise: Promise.resolve(value), done: true, value, startedAt: now, load: entry.load, refreshing: false };
        cache.set(key, fresh, now);
      },
      // The old entry expires on time; the next request after that loads in the foreground.
      () => {
        entry.refreshing = false;
      },
    );
  }
}
