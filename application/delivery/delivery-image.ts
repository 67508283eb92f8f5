import { inject, injectable } from 'inversify';
import { parseDashboardSpec, RENDERED_DATA, RENDERED_PAGE, type Row } from '../../domain/dashboard-spec.js';
import type { DashboardRecord } from '../ports/dashboard-store.js';
import { DashboardStore } from '../ports/dashboard-store.js';
import { ImageRenderer } from '../ports/image-renderer.js';
import { RefreshStateStore } from '../ports/refresh-state-store.js';
import { ServedFiles } from '../hosting/served-files.js';

/**
 * The PNG a delivery carries: the whole spec dashboard, light theme, from the data its page serves now
 * (the live render when it is of the current version); a page published as a body gets its card.
 */
@injectable()
export class DeliveryImage {
  constructor(
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(RefreshStateStore) private readonly refreshState: RefreshStateStore,
    @inject(ServedFiles) private readonly files: ServedFiles,
    @inject(ImageRenderer) private readonly renderer: ImageRenderer,
  ) {}

  async of(dashboard: DashboardRecord, owner: string): Promise<Buffer | null> {
    const version = await this.store.getVersion(dashboard.id, dashboard.currentVersionId);
    if (!version) return null;
    if (version.spec === null) return toBuffer(await this.renderer.renderCard({ name: dashboard.name, owner, publishedAt: version.createdAt, theme: 'light' }));
    const live = await this.refreshState.liveRender(dashboard.id);
    const manifest = live && live.versionId === version.id ? live.files : version.files;
    const entry = Object.hasOwn(manifest, RENDERED_DATA) ? manifest[RENDERED_DATA]! : undefined;
    const pageEntry = Object.hasOwn(manifest, RENDERED_PAGE) ? manifest[RENDERED_PAGE]! : undefined;
    const [bytes, page] = await Promise.all([entry ? this.files.bytes(entry.sha256) : null, pageEntry ? this.files.bytes(pageEntry.sha256) : null]);
    if (!bytes) return null;
    const rendered = JSON.parse(Buffer.from(bytes).toString('utf8')) as { renderedAt?: string; data?: Record<string, Row[]> };
    const png = await this.renderer.renderPng(parseDashboardSpec(version.spec), rendered.data ?? {}, {
      fallbackTitle: dashboard.name,
      renderedAt: new Date(rendered.renderedAt ?? 0),
      theme: 'light',
      ...(page ? { page: Buffer.from(page).toString('utf8') } : {}),
    });
    return png && toBuffer(png);
  }
}

const toBuffer = (png: Uint8Array) => Buffer.from(png.buffer, png.byteOffset, png.byteLength);
