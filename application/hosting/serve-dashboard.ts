import { inject, injectable } from 'inversify';
import type { Visibility } from '../../domain/metadata.js';
import { DashboardAddresses } from '../ports/dashboard-addresses.js';
import { DEFAULT_FILENAME, FILENAME_MAX_LENGTH } from '../../domain/names.js';
import type { DashboardRecord, Manifest } from '../ports/dashboard-store.js';
import { ShareAccess } from '../sharing/share-access.js';
import { HostingCatalog, type ListedDashboard, type Site } from './hosting-catalog.js';
import { hasParamForm, PageVariants } from './page-variants.js';
import { parseTheme } from '../../domain/page-theme.js';
import { ViewerAccess } from './viewer-access.js';
import { ParamPages } from './param-pages.js';

export interface HostingRequest {
  /** The handle or workspace slug in front of the dashboard domain. */
  subdomain: string;
  /** The raw (undecoded) request path. */
  path: string;
  /** The raw query string without `?`; kept in the sign-in's return path. */
  query: string;
  /** The viewer cookie's value, read only when a private dashboard needs it. */
  viewerToken: () => string | null;
  /** The path of a Referer on this same host, read only for the relative-link fallback. */
  refererPath: () => string | null;
  /** The share cookie this browser holds for the dashboard `slug`, if any (read only when the dashboard exists). */
  shareCookie?: (slug: string) => string | null;
}

export interface FileOutcome {
  kind: 'file';
  body: Buffer;
  etag: string;
  contentType: string;
  visibility: Visibility;
  dashboardId: string;
  /** The dashboard's page itself (index.html): what counts as a view. */
  page: boolean;
  /** Set when a share link let the browser in: its views count for the link too. */
  shareLinkId?: string;
}

/** Where a request leads instead of a file; the shell makes the URL and picks the status. */
export type Moved =
  /** An old slug (an alias): the dashboard lives at `slug` for good, `filename` kept ('' for its page). */
  | { kind: 'moved'; subdomain: string; slug: string; filename: string; visibility: Visibility }
  /** A dashboard published without an index.html: its page opens its first file. */
  | { kind: 'first_file'; subdomain: string; slug: string; filename: string; visibility: Visibility }
  /** A page's relative link arrived at the root: the file is in the Referer's dashboard, `slug`. */
  | { kind: 'relative_link'; slug: string; filename: string; visibility: Visibility };

export type HostingOutcome =
  | FileOutcome
  | Moved
  | { kind: 'listing'; subdomain: string; dashboards: ListedDashboard[] }
  /** A private dashboard and no signed-in viewer: send them through the web app's sign-in. */
  | { kind: 'sign_in'; returnPath: string }
  /** Missing, or private and the viewer is not allowed: the two are indistinguishable on purpose. */
  | { kind: 'not_found' };

const SLUG = /^[a-z0-9-]{1,64}$/;
const FILENAME = new RegExp(`^[a-z0-9._-]{1,${FILENAME_MAX_LENGTH}}$`);
const NOT_FOUND: HostingOutcome = { kind: 'not_found' };
const NOT_FOUND_ACCESS = { kind: 'not_found' } as const;

const previewOf = (site: Site, dashboard: DashboardRecord, contentType: string) => ({ subdomain: site.subdomain, slug: dashboard.slug, name: dashboard.name, contentType });

/** A request let in to a dashboard: the files it may see and the version they belong to. */
export interface Access {
  kind: 'granted';
  dashboard: DashboardRecord;
  /** Reached through an old slug: the caller leads the browser to `dashboard.slug`. */
  alias: boolean;
  manifest: Manifest;
  versionId: string;
  /** Set when a share link let the browser in. */
  shareLinkId?: string;
}

/**
 * Resolves one request on `<subdomain>.{dashboard_domain}`: `/` lists the account's public dashboards,
 * `/<slug>` and `/<slug>/` serve its index.html, `/<slug>/<filename>` one file; aliases lead to the
 * canonical dashboard (file path kept); private dashboards only for their owner or workspace members.
 */
@injectable()
export class ServeDashboard {
  constructor(
    @inject(HostingCatalog) private readonly catalog: HostingCatalog,
    @inject(ViewerAccess) private readonly viewers: ViewerAccess,
    @inject(ShareAccess) private readonly shares: ShareAccess,
    @inject(ParamPages) private readonly params: ParamPages,
    @inject(DashboardAddresses) private readonly addresses: DashboardAddresses,
  ) {}

  private readonly variants = new PageVariants((subdomain, slug) => this.addresses.pageUrl(subdomain, slug));

  async execute(request: HostingRequest): Promise<HostingOutcome> {
    const site = await this.catalog.site(request.subdomain);
    if (!site) return NOT_FOUND;
    if (request.path === '/') return this.listing(site);
    const segments = request.path.slice(1).split('/');
    if (segments.length > 2) return NOT_FOUND;
    const [slug, filename = ''] = segments as [string, string?];
    const outcome = await this.resolve(site, request, slug, filename);
    if (outcome.kind === 'not_found' && segments.length === 1) return this.relativeLinkFallback(site, request, slug);
    return outcome;
  }

  private async resolve(site: Site, request: HostingRequest, slug: string, filename: string): Promise<HostingOutcome> {
    if (!SLUG.test(slug) || (filename !== '' && (!FILENAME.test(filename) || filename === '.' || filename === '..'))) {
      return NOT_FOUND;
    }
    const access = await this.access(site, request, slug);
    if (access.kind !== 'granted') return access;
    const { dashboard } = access;
    if (access.alias) return { kind: 'moved', subdomain: site.subdomain, slug: dashboard.slug, filename, visibility: dashboard.visibility };
    return this.file(site, dashboard, access, filename, request.query);
  }

  /**
   * Whether this request may see the dashboard at `slug` (an alias's target included), by the page's rules:
   * public, a share cookie its link honours, or a signed-in viewer allowed on the site. Images follow it too.
   */
  async access(site: Site, request: HostingRequest, slug: string): Promise<Access | { kind: 'sign_in'; returnPath: string } | { kind: 'not_found' }> {
    if (!SLUG.test(slug)) return NOT_FOUND_ACCESS;
    const found = await this.catalog.lookup(site, slug);
    if (!found) return NOT_FOUND_ACCESS;
    const { dashboard } = found;
    const shared = found.kind === 'dashboard' ? await this.shared(request, dashboard, found.manifest) : null;
    if (shared) return { kind: 'granted', dashboard, alias: false, ...shared };
    if (dashboard.visibility !== 'public') {
      const userId = await this.viewers.viewer(site.subdomain, request.viewerToken());
      if (userId === null) return { kind: 'sign_in', returnPath: request.path + (request.query ? `?${request.query}` : '') };
      if (!(await this.catalog.canView(site, userId))) return NOT_FOUND_ACCESS;
    }
    if (found.kind === 'alias') return { kind: 'granted', dashboard, alias: true, manifest: {}, versionId: dashboard.currentVersionId };
    return { kind: 'granted', dashboard, alias: false, manifest: found.manifest, versionId: dashboard.currentVersionId };
  }

  /**
   * A share cookie for this dashboard that its link still honours: the files it grants (the pinned version's,
   * or the current ones). Null without one, and for a link paused, revoked or expired since.
   */
  private async shared(request: HostingRequest, dashboard: DashboardRecord, current: Manifest): Promise<{ manifest: Manifest; versionId: string; shareLinkId: string } | null> {
    const cookie = request.shareCookie?.(dashboard.slug) ?? null;
    if (cookie === null) return null;
    const grant = await this.shares.grant(cookie, dashboard.id);
    if (!grant) return null;
    const manifest = grant.pinnedVersionId === null ? current : await this.catalog.pinnedManifest(dashboard.id, grant.pinnedVersionId);
    return manifest ? { manifest, versionId: grant.pinnedVersionId ?? dashboard.currentVersionId, shareLinkId: grant.linkId } : null;
  }

  private async file(site: Site, dashboard: DashboardRecord, access: Access, filename: string, query: string): Promise<HostingOutcome> {
    const { manifest, shareLinkId } = access;
    const theme = parseTheme(new URLSearchParams(query).get('theme'));
    const name = filename || DEFAULT_FILENAME;
    const entry = Object.hasOwn(manifest, name) ? manifest[name] : undefined;
    // Whatever a share link lets in is answered as private: never cached by others, never embedded elsewhere.
    const visibility = shareLinkId === undefined ? dashboard.visibility : 'private';
    if (!entry) {
      // A dashboard published without an index.html: its URL opens its first file.
      const first = Object.keys(manifest).sort()[0];
      if (filename !== '' || first === undefined) return NOT_FOUND;
      return { kind: 'first_file', subdomain: site.subdomain, slug: dashboard.slug, filename: first, visibility };
    }
    let file = await this.catalog.file(entry);
    if (!file) throw new Error(`file ${entry.sha256} of dashboard ${dashboard.id} is missing from storage`);
    const page = name === DEFAULT_FILENAME;
    if (page && query !== '' && hasParamForm(file.body)) {
      const pageUrl = this.addresses.pageUrl(site.subdomain, dashboard.slug);
      file = (await this.params.page({ dashboard, versionId: access.versionId, manifest, page: file, pageUrl, query })) ?? file;
    }
    return {
      kind: 'file',
      ...(page ? this.variants.of(file, { visibility, theme, preview: previewOf(site, dashboard, entry.contentType) }) : file),
      contentType: entry.contentType,
      visibility,
      dashboardId: dashboard.id,
      page,
      ...(shareLinkId === undefined ? {} : { shareLinkId }),
    };
  }

  /**
   * The hot path, without awaiting anything: a public file, or one a remembered share session grants, whose
   * site, dashboard and bytes are all cached. Undefined means "ask `execute`", never "not found".
   */
  peek(subdomain: string, path: string, shareCookie?: (slug: string) => string | null): FileOutcome | undefined {
    const site = this.catalog.peekSite(subdomain);
    if (!site || path.length < 2) return undefined;
    const slash = path.indexOf('/', 1);
    const slug = slash < 0 ? path.slice(1) : path.slice(1, slash);
    const filename = slash < 0 ? '' : path.slice(slash + 1);
    if (!SLUG.test(slug) || (filename !== '' && (!FILENAME.test(filename) || filename === '.' || filename === '..'))) return undefined;
    const found = this.catalog.peekLookup(site, slug);
    if (!found || found.kind !== 'dashboard') return undefined;
    const cookie = shareCookie?.(slug) ?? null;
    let manifest = found.manifest;
    let shareLinkId: string | undefined;
    if (cookie !== null) {
      const grant = this.shares.peekGrant(cookie, found.dashboard.id);
      if (!grant) return undefined;
      const pinned = grant.pinnedVersionId === null ? manifest : this.catalog.peekPinned(found.dashboard.id, grant.pinnedVersionId);
      if (!pinned) return undefined;
      manifest = pinned;
      shareLinkId = grant.linkId;
    } else if (found.dashboard.visibility !== 'public') return undefined;
    const name = filename || DEFAULT_FILENAME;
    if (!Object.hasOwn(manifest, name)) return undefined;
    const entry = manifest[name]!;
    const file = this.catalog.peekFile(entry.sha256);
    if (!file) return undefined;
    const visibility = shareLinkId === undefined ? 'public' : 'private';
    const page = name === DEFAULT_FILENAME;
    return {
      kind: 'file',
      ...(page ? this.variants.of(file, { visibility, preview: previewOf(site, found.dashboard, entry.contentType) }) : file),
      contentType: entry.contentType,
      visibility,
      dashboardId: found.dashboard.id,
      page,
      ...(shareLinkId === undefined ? {} : { shareLinkId }),
    };
  }

  /**
   * The canonical URL has no trailing slash, so a page's relative link `data.json` arrives as
   * `/data.json`. When the Referer is one of this account's dashboards holding that file, lead the
   * browser there (the shell answers it as temporary: it depends on the Referer).
   */
  private async relativeLinkFallback(site: Site, request: HostingRequest, name: string): Promise<HostingOutcome> {
    const referer = request.refererPath();
    const refererSlug = referer?.split('/')[1];
    if (!refererSlug || refererSlug === name || !SLUG.test(refererSlug) || !FILENAME.test(name)) return NOT_FOUND;
    const inner = await this.resolve(site, request, refererSlug, name);
    if (inner.kind === 'moved' || inner.kind === 'first_file') return inner;
    if (inner.kind !== 'file') return NOT_FOUND;
    return { kind: 'relative_link', slug: refererSlug, filename: name, visibility: inner.visibility };
  }

  private async listing(site: Site): Promise<HostingOutcome> {
    return { kind: 'listing', subdomain: site.subdomain, dashboards: await this.catalog.publicListing(site) };
  }
}
