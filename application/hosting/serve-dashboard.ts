import { inject, injectable } from 'inversify';
import type { Visibility } from '../../domain/metadata.js';
import { DEFAULT_FILENAME, FILENAME_MAX_LENGTH } from '../../domain/names.js';
import { canonicalUrl } from '../../domain/urls.js';
import { Settings } from '../ports/settings.js';
import { HostingCatalog, type Site } from './hosting-catalog.js';
import { ViewerAccess } from './viewer-access.js';

export interface HostingRequest {
  /** The handle or workspace slug in front of the dashboard domain. */
  subdomain: string;
  /** The raw (undecoded) request path. */
  path: string;
  /** The raw query string without `?`; kept on redirects. */
  query: string;
  /** The viewer cookie's value, read only when a private dashboard needs it. */
  viewerToken: () => string | null;
  /** The path of a Referer on this same host, read only for the relative-link fallback. */
  refererPath: () => string | null;
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
}

export type HostingOutcome =
  | FileOutcome
  | { kind: 'redirect'; status: 301 | 302; location: string; visibility: Visibility }
  | { kind: 'listing'; subdomain: string; dashboards: Array<{ slug: string; name: string; url: string; updatedAt: Date }> }
  /** A private dashboard and no signed-in viewer: send them through the web app's sign-in. */
  | { kind: 'sign_in'; returnPath: string }
  /** Missing, or private and the viewer is not allowed: the two are indistinguishable on purpose. */
  | { kind: 'not_found' };

const SLUG = /^[a-z0-9-]{1,64}$/;
const FILENAME = new RegExp(`^[a-z0-9._-]{1,${FILENAME_MAX_LENGTH}}$`);
const NOT_FOUND: HostingOutcome = { kind: 'not_found' };

/**
 * Resolves one request on `<subdomain>.{dashboard_domain}`: `/` lists the account's public dashboards,
 * `/<slug>` and `/<slug>/` serve its index.html, `/<slug>/<filename>` one file; aliases answer 301 to
 * the canonical URL (file path kept); private dashboards only for their owner or workspace members.
 */
@injectable()
export class ServeDashboard {
  constructor(
    @inject(HostingCatalog) private readonly catalog: HostingCatalog,
    @inject(ViewerAccess) private readonly viewers: ViewerAccess,
    @inject(Settings) private readonly settings: Settings,
  ) {}

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
    const found = await this.catalog.lookup(site, slug);
    if (!found) return NOT_FOUND;
    const { dashboard } = found;
    if (dashboard.visibility !== 'public') {
      const userId = await this.viewers.viewer(site.subdomain, request.viewerToken());
      if (userId === null) return { kind: 'sign_in', returnPath: request.path + (request.query ? `?${request.query}` : '') };
      if (!(await this.catalog.canView(site, userId))) return NOT_FOUND;
    }
    if (found.kind === 'alias') {
      const location = canonicalUrl(this.settings, site.subdomain, dashboard.slug, filename || undefined);
      return { kind: 'redirect', status: 301, location: location + (request.query ? `?${request.query}` : ''), visibility: dashboard.visibility };
    }
    const name = filename || DEFAULT_FILENAME;
    const entry = Object.hasOwn(found.manifest, name) ? found.manifest[name] : undefined;
    if (!entry) {
      // A dashboard published without an index.html: its URL opens its first file.
      const first = Object.keys(found.manifest).sort()[0];
      if (filename !== '' || first === undefined) return NOT_FOUND;
      return { kind: 'redirect', status: 302, location: canonicalUrl(this.settings, site.subdomain, dashboard.slug, first), visibility: dashboard.visibility };
    }
    const file = await this.catalog.file(entry);
    if (!file) throw new Error(`file ${entry.sha256} of dashboard ${dashboard.id} is missing from storage`);
    return {
      kind: 'file',
      body: file.body,
      etag: file.etag,
      contentType: entry.contentType,
      visibility: dashboard.visibility,
      dashboardId: dashboard.id,
      page: name === DEFAULT_FILENAME,
    };
  }

  /**
   * The hot path, without awaiting anything: a public file whose site, dashboard and bytes are all
   * cached. Undefined means "ask `execute`", never "not found".
   */
  peek(subdomain: string, path: string): FileOutcome | undefined {
    const site = this.catalog.peekSite(subdomain);
    if (!site || path.length < 2) return undefined;
    const slash = path.indexOf('/', 1);
    const slug = slash < 0 ? path.slice(1) : path.slice(1, slash);
    const filename = slash < 0 ? '' : path.slice(slash + 1);
    if (!SLUG.test(slug) || (filename !== '' && (!FILENAME.test(filename) || filename === '.' || filename === '..'))) return undefined;
    const found = this.catalog.peekLookup(site, slug);
    if (!found || found.kind !== 'dashboard' || found.dashboard.visibility !== 'public') return undefined;
    const name = filename || DEFAULT_FILENAME;
    if (!Object.hasOwn(found.manifest, name)) return undefined;
    const entry = found.manifest[name]!;
    const file = this.catalog.peekFile(entry.sha256);
    if (!file) return undefined;
    return {
      kind: 'file',
      body: file.body,
      etag: file.etag,
      contentType: entry.contentType,
      visibility: 'public',
      dashboardId: found.dashboard.id,
      page: name === DEFAULT_FILENAME,
    };
  }

  /**
   * The canonical URL has no trailing slash, so a page's relative link `data.json` arrives as
   * `/data.json`. When the Referer is one of this account's dashboards holding that file, send the
   * browser there (302: it depends on the Referer).
   */
  private async relativeLinkFallback(site: Site, request: HostingRequest, name: string): Promise<HostingOutcome> {
    const referer = request.refererPath();
    const refererSlug = referer?.split('/')[1];
    if (!refererSlug || refererSlug === name || !SLUG.test(refererSlug) || !FILENAME.test(name)) return NOT_FOUND;
    const inner = await this.resolve(site, request, refererSlug, name);
    if (inner.kind === 'redirect') return inner;
    if (inner.kind !== 'file') return NOT_FOUND;
    return { kind: 'redirect', status: 302, location: `/${refererSlug}/${name}${request.query ? `?${request.query}` : ''}`, visibility: inner.visibility };
  }

  private async listing(site: Site): Promise<HostingOutcome> {
    const listed = await this.catalog.publicListing(site);
    return {
      kind: 'listing',
      subdomain: site.subdomain,
      dashboards: listed.map((d) => ({ ...d, url: canonicalUrl(this.settings, site.subdomain, d.slug) })),
    };
  }
}
