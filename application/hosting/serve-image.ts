import { createHash } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { parseDashboardSpec, RENDERED_DATA, RENDERED_PAGE, type Row } from '../../domain/dashboard-spec.js';
import type { Visibility } from '../../domain/metadata.js';
import type { ImageTheme } from '../../domain/page-theme.js';
import { BoundedCache } from '../../shared/bounded-cache.js';
import { DashboardStore, type DashboardRecord, type FileEntry, type Manifest } from '../ports/dashboard-store.js';
import { DashboardAddresses } from '../ports/dashboard-addresses.js';
import { ImageRenderer } from '../ports/image-renderer.js';
import { HostingCatalog, type Site } from './hosting-catalog.js';
import { ParamPages, type ValuesDrawn } from './param-pages.js';
import { ServeDashboard, type HostingRequest } from './serve-dashboard.js';

/** Which image of a dashboard, and the ETag the asker already holds. */
export interface ImageAsk {
  /** One panel by its id; the whole dashboard when absent. */
  panelId?: string;
  theme: ImageTheme;
  /** True when the browser already holds this ETag: the answer is then `not_modified`, with nothing drawn. */
  holds?: (etag: string) => boolean;
  /** The URL's raw query: parameter values in it are drawn as the page draws them (`theme` aside). */
  query?: string;
}

export interface ImageRequest extends Omit<HostingRequest, 'refererPath'>, Omit<ImageAsk, 'query'> {
  slug: string;
}

/** The version whose image is drawn: its dashboard, and the files served for it (data.json among them). */
export interface ShownVersion {
  dashboard: DashboardRecord;
  versionId: string;
  manifest: Manifest;
}

export type ImageOutcome =
  | { kind: 'image'; body: Buffer; etag: string; visibility: Visibility }
  | { kind: 'not_modified'; etag: string; visibility: Visibility }
  /** Asked by an old slug (an alias): the same image lives under `slug` for good. */
  | { kind: 'moved'; slug: string; visibility: Visibility }
  | { kind: 'sign_in'; returnPath: string }
  | { kind: 'not_found' };

/** Bumped whenever the drawing changes, so every ETag (and cached image) from before is dropped. */
const IMAGE_FORMAT = 'dashpub-image-2';
const CACHE_BYTES = 64 * 1024 * 1024;
const NOT_FOUND: ImageOutcome = { kind: 'not_found' };

/**
 * `/_image/<slug>.png` and `/_image/<slug>/<panel-id>.png`: a spec dashboard's PNG, under exactly the
 * page's access rules, drawn from the spec and data.json being served (a card for a page published as a
 * body). Images are drawn on the first
 * request for their inputs and kept by ETag (docs/decisions/0200-images-drawn-on-first-request.md), so
 * publishing and refreshing pay nothing for them. Parameter values in the query string draw from the rows
 * and page of those values' render, under the page's budget and cache (docs/decisions/0266-images-take-parameters.md).
 */
@injectable()
export class ServeDashboardImage {
  private readonly images = new BoundedCache<Buffer>({ capacity: CACHE_BYTES, ttlMs: Infinity, cost: (png) => png.byteLength });
  private readonly drawing = new Map<string, Promise<Buffer | null>>();

  constructor(
    @inject(HostingCatalog) private readonly catalog: HostingCatalog,
    @inject(ServeDashboard) private readonly serve: ServeDashboard,
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(ImageRenderer) private readonly renderer: ImageRenderer,
    @inject(ParamPages) private readonly params: ParamPages,
    @inject(DashboardAddresses) private readonly addresses: DashboardAddresses,
  ) {}

  async execute(request: ImageRequest): Promise<ImageOutcome> {
    const site = await this.catalog.site(request.subdomain);
    if (!site) return NOT_FOUND;
    const access = await this.serve.access(site, { ...request, refererPath: () => null }, request.slug);
    if (access.kind !== 'granted') return access;
    const { dashboard } = access;
    if (access.alias) return { kind: 'moved', slug: dashboard.slug, visibility: dashboard.visibility };
    const visibility: Visibility = access.shareLinkId === undefined ? dashboard.visibility : 'private';
    return this.imageOf(site, access, visibility, request);
  }

  /**
   * The image of a version the caller has already let in (the page's access rules above, or a use case's
   * own tenant check), drawn or found by ETag; `visibility` is what the answer is cached as.
   */
  async imageOf(site: Site, shown: ShownVersion, visibility: Visibility, request: ImageAsk): Promise<ImageOutcome> {
    const { dashboard, manifest, versionId } = shown;
    const version = await this.store.getVersionSummary(dashboard.id, versionId);
    if (!version) return NOT_FOUND;
    const data = Object.hasOwn(manifest, RENDERED_DATA) ? manifest[RENDERED_DATA]! : undefined;
    const page = Object.hasOwn(manifest, RENDERED_PAGE) ? manifest[RENDERED_PAGE]! : undefined;
    const drawsSpec = version.kind === 'spec' && data !== undefined;
    // A page published as a body has one image, its card: no panels.
    if (!drawsSpec && request.panelId !== undefined) return NOT_FOUND;
    const values = drawsSpec && request.query ? await this.valuesDrawn(site, shown, request.query) : null;
    const inputs = drawsSpec
      ? [versionId, data.sha256, page?.sha256 ?? '', dashboard.name, request.theme, request.panelId ?? '', ...(values ? [values.key] : [])]
      : ['card', versionId, dashboard.name, site.subdomain, version.createdAt.toISOString(), request.theme];
    const etag = `"img-${createHash('sha256').update([IMAGE_FORMAT, ...inputs].join('\n')).digest('hex').slice(0, 40)}"`;
    if (request.holds?.(etag)) return { kind: 'not_modified', etag, visibility };
    let body = this.images.get(etag, 0);
    if (body === undefined) {
      let pending = this.drawing.get(etag);
      if (pending === undefined) {
        const card = { name: dashboard.name, owner: site.subdomain, publishedAt: version.createdAt, theme: request.theme };
        const drawing = drawsSpec ? this.draw(dashboard.id, dashboard.name, versionId, values ?? { data, page }, request) : this.renderer.renderCard(card).then(toBuffer);
        pending = drawing.finally(() => this.drawing.delete(etag));
        this.drawing.set(etag, pending);
      }
      const drawn = await pending;
      if (drawn === null) return NOT_FOUND;
      this.images.set(etag, drawn, 0);
      body = drawn;
    }
    return { kind: 'image', body, etag, visibility };
  }

  /** The rows (and page) drawn for the query's values; null where the defaults' image stands. */
  private async valuesDrawn(site: Site, shown: ShownVersion, query: string): Promise<ValuesDrawn | null> {
    const pageUrl = this.addresses.pageUrl(site.subdomain, shown.dashboard.slug);
    return this.params.data({ ...shown, pageUrl, query });
  }

  /** `files`: the served data.json and page, or the texts drawn for parameter values. */
  private async draw(dashboardId: string, name: string, versionId: string, files: { data: FileEntry; page: FileEntry | undefined } | ValuesDrawn, request: ImageAsk): Promise<Buffer | null> {
    const text = async (entry: FileEntry | undefined) => (entry ? ((await this.catalog.file(entry))?.body.toString('utf8') ?? null) : null);
    const [version, dataJson, page] = await Promise.all([
      this.store.getVersion(dashboardId, versionId),
      'dataJson' in files ? files.dataJson : text(files.data),
      'dataJson' in files ? files.page : text(files.page),
    ]);
    if (!version || version.spec === null || dataJson === null) return null;
    const rendered = JSON.parse(dataJson) as { renderedAt?: string; data?: Record<string, Row[]> };
    const png = await this.renderer.renderPng(parseDashboardSpec(version.spec), rendered.data ?? {}, {
      fallbackTitle: name,
      renderedAt: new Date(rendered.renderedAt ?? 0),
      theme: request.theme,
      ...(request.panelId === undefined ? {} : { panelId: request.panelId }),
      ...(page ? { page } : {}),
    });
    return png && toBuffer(png);
  }
}

const toBuffer = (png: Uint8Array) => Buffer.from(png.buffer, png.byteOffset, png.byteLength);
