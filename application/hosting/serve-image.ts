import { createHash } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { parseDashboardSpec, RENDERED_DATA, type Row } from '../../domain/dashboard-spec.js';
import type { Visibility } from '../../domain/metadata.js';
import type { ImageTheme } from '../../domain/page-theme.js';
import { BoundedCache } from '../../shared/bounded-cache.js';
import { DashboardStore, type DashboardRecord, type FileEntry, type Manifest } from '../ports/dashboard-store.js';
import { ImageRenderer } from '../ports/image-renderer.js';
import { HostingCatalog, type Site } from './hosting-catalog.js';
import { ServeDashboard, type HostingRequest } from './serve-dashboard.js';

/** Which image of a dashboard, and the ETag the asker already holds. */
export interface ImageAsk {
  /** One panel by its id; the whole dashboard when absent. */
  panelId?: string;
  theme: ImageTheme;
  /** True when the browser already holds this ETag: the answer is then `not_modified`, with nothing drawn. */
  holds?: (etag: string) => boolean;
}

export interface ImageRequest extends Omit<HostingRequest, 'refererPath'>, ImageAsk {
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
const IMAGE_FORMAT = 'dashpub-image-1';
const CACHE_BYTES = 64 * 1024 * 1024;
const NOT_FOUND: ImageOutcome = { kind: 'not_found' };

/**
 * `/_image/<slug>.png` and `/_image/<slug>/<panel-id>.png`: a spec dashboard's PNG, under exactly the
 * page's access rules, drawn from the spec and data.json being served (a card for a page published as a
 * body). Images are drawn on the first
 * request for their inputs and kept by ETag (docs/decisions/0200-images-drawn-on-first-request.md), so
 * publishing and refreshing pay nothing for them.
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
    const drawsSpec = version.kind === 'spec' && data !== undefined;
    // A page published as a body has one image, its card: no panels.
    if (!drawsSpec && request.panelId !== undefined) return NOT_FOUND;
    const inputs = drawsSpec
      ? [versionId, data.sha256, dashboard.name, request.theme, request.panelId ?? '']
      : ['card', versionId, dashboard.name, site.subdomain, version.createdAt.toISOString(), request.theme];
    const etag = `"img-${createHash('sha256').update([IMAGE_FORMAT, ...inputs].join('\n')).digest('hex').slice(0, 40)}"`;
    if (request.holds?.(etag)) return { kind: 'not_modified', etag, visibility };
    let body = this.images.get(etag, 0);
    if (body === undefined) {
      let pending = this.drawing.get(etag);
      if (pending === undefined) {
        const card = { name: dashboard.name, owner: site.subdomain, publishedAt: version.createdAt, theme: request.theme };
        const drawing = drawsSpec ? this.draw(dashboard.id, dashboard.name, versionId, data, request) : this.renderer.renderCard(card).then(toBuffer);
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

  private async draw(dashboardId: string, name: string, versionId: string, data: FileEntry, request: ImageAsk): Promise<Buffer | null> {
    const [version, file] = await Promise.all([this.store.getVersion(dashboardId, versionId), this.catalog.file(data)]);
    if (!version || version.spec === null || !file) return null;
    const rendered = JSON.parse(file.body.toString('utf8')) as { renderedAt?: string; data?: Record<string, Row[]> };
    const png = await this.renderer.renderPng(parseDashboardSpec(version.spec), rendered.data ?? {}, {
      fallbackTitle: name,
      renderedAt: new Date(rendered.renderedAt ?? 0),
      theme: request.theme,
      ...(request.panelId === undefined ? {} : { panelId: request.panelId }),
    });
    return png && toBuffer(png);
  }
}

const toBuffer = (png: Uint8Array) => Buffer.from(png.buffer, png.byteOffset, png.byteLength);
