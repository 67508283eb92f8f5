import { inject, injectable } from 'inversify';
import { DomainError } from '../../domain/errors.js';
import { DashboardStore, type DashboardRecord, type Manifest } from '../ports/dashboard-store.js';
import { DashboardAddresses } from '../ports/dashboard-addresses.js';
import type { Principal } from '../ports/token-verifier.js';
import { ScopeResolver } from '../scope-resolver.js';
import { ServedFiles } from '../hosting/served-files.js';
import { ServeDashboardImage, type ImageAsk, type ImageOutcome } from '../hosting/serve-image.js';
import { hasParamForm } from '../hosting/page-variants.js';
import { ParamPages } from '../hosting/param-pages.js';
import { DEFAULT_FILENAME } from '../../domain/names.js';
import { ownerOf, subdomainOf, type Target } from '../../domain/scope.js';
import { ListDashboards, type DashboardPage } from './list-dashboards.js';
import { loadSummary } from '../dashboard-lookup.js';
import { pickFilename, readBody, type BodyView } from './get-dashboard.js';

/**
 * The MCP resource surface over dashboards: the same listing as list_dashboards, and a read that
 * returns the bytes the dashboards host serves. `{handle}` must be a place this authorization may act on.
 */
@injectable()
export class DashboardResources {
  constructor(
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(ScopeResolver) private readonly scopes: ScopeResolver,
    @inject(ListDashboards) private readonly listing: ListDashboards,
    @inject(ServedFiles) private readonly served: ServedFiles,
    @inject(ServeDashboardImage) private readonly images: ServeDashboardImage,
    @inject(ParamPages) private readonly params: ParamPages,
    @inject(DashboardAddresses) private readonly addresses: DashboardAddresses,
  ) {}

  async list(principal: Principal, cursor: string | undefined): Promise<DashboardPage> {
    return this.listing.execute(principal, { cursor });
  }

  /**
   * The body the dashboards host serves at the dashboard's URL; `query` is that URL's query string, whose
   * parameter values draw the spec page as the host draws it for them (same cache, budget and notices).
   */
  async read(principal: Principal, handle: string, slug: string, query = ''): Promise<{ body: BodyView; contentType: string; dashboard: string }> {
    const target = await this.targetFor(principal, handle);
    const missing = new DomainError('not_found', `No dashboard at ${handle}/${slug}`);
    if (!target) throw missing;
    const { dashboard, current } = await loadSummary(this.store, target, slug, missing, true);
    const files = (await this.served.manifest(dashboard, current)) ?? current.files;
    const filename = pickFilename(undefined, files);
    let body = await readBody(this.store, files, filename);
    if (query !== '' && filename === DEFAULT_FILENAME && body.encoding === 'utf8') {
      body = await this.withValues(dashboard, files, subdomainOf(target), body, query);
    }
    return { body, contentType: files[filename].contentType, dashboard: dashboard.slug };
  }

  /** The spec page drawn for the query's parameter values; the body as it is when it has no parameter form. */
  private async withValues(dashboard: DashboardRecord, manifest: Manifest, subdomain: string, body: BodyView, query: string): Promise<BodyView> {
    const page = { body: Buffer.from(body.content, 'utf8'), etag: `"${manifest[DEFAULT_FILENAME]!.sha256}"` };
    if (!hasParamForm(page.body)) return body;
    const pageUrl = this.addresses.pageUrl(subdomain, dashboard.slug);
    const drawn = await this.params.page({ dashboard, versionId: dashboard.currentVersionId, manifest, page, pageUrl, query });
    return drawn ? { ...body, content: drawn.body.toString('utf8'), size: drawn.body.byteLength } : body;
  }

  /**
   * The dashboard's image (its card for a page published as a body) as the caller's authorization sees it:
   * the same tenant check as `read`, then the host's drawing and cache, so each image is drawn once.
   */
  async image(principal: Principal, handle: string, slug: string, ask: ImageAsk): Promise<Exclude<ImageOutcome, { kind: 'moved' | 'sign_in' | 'not_found' }>> {
    const target = await this.targetFor(principal, handle);
    const missing = new DomainError('not_found', `No dashboard at ${handle}/${slug}`);
    if (!target) throw missing;
    const { dashboard, current } = await loadSummary(this.store, target, slug, missing, true);
    const manifest = (await this.served.manifest(dashboard, current)) ?? current.files;
    const site = { subdomain: subdomainOf(target), owner: ownerOf(target) };
    // Seen through the caller's own authorization: never an answer for shared caches.
    const outcome = await this.images.imageOf(site, { dashboard, versionId: dashboard.currentVersionId, manifest }, 'private', ask);
    if (outcome.kind !== 'image' && outcome.kind !== 'not_modified') throw missing;
    return outcome;
  }

  /** The caller's own handle, or a workspace the grant may act on; anything else reads as missing. */
  private async targetFor(principal: Principal, handle: string): Promise<Target | null> {
    const personal = await this.scopes.personalOf(principal);
    if (personal.kind === 'personal' && personal.handle === handle) {
      return principal.lock.kind === 'workspace' ? null : personal;
    }
    try {
      return await this.scopes.resolve(principal, handle);
    } catch (err) {
      if (err instanceof DomainError) return null;
      throw err;
    }
  }
}
