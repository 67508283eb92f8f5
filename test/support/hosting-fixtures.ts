import { createHash, randomUUID } from 'node:crypto';
import type { DashboardRecord, DashboardStore, Manifest } from '../../application/ports/dashboard-store.js';
import type { Clock } from '../../application/ports/clock.js';
import type { Visibility } from '../../domain/metadata.js';
import type { OwnerRef } from '../../domain/scope.js';
import { contentTypeFor } from '../../domain/content-types.js';
import { aDashboard } from './mothers.js';

export const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

/** The line of preview tags the host adds to a public page published as a body without its own (decision 0231). */
export const ADDED_PREVIEW = /\n?<meta property="og:type" content="website">[^\n]*\n/;
/** A public body page as served, without that line: the page as published. */
export const asPublished = (served: string) => served.replace(ADDED_PREVIEW, '');

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(public ms = Date.parse('2026-03-01T12:00:00Z')) {}
  now(): Date {
    return new Date(this.ms);
  }
  advance(ms: number): void {
    this.ms += ms;
  }
}

/** Writes a dashboard straight into a store (publish rules are not under test here). */
export async function seedDashboard(
  store: DashboardStore,
  owner: OwnerRef,
  input: { slug: string; name?: string; visibility?: Visibility; files: Record<string, string | Uint8Array>; createdBy?: string },
): Promise<DashboardRecord> {
  const manifest: Manifest = {};
  const versionId = randomUUID();
  const now = new Date();
  const record: DashboardRecord = aDashboard(owner, {
    slug: input.slug,
    name: input.name ?? input.slug,
    visibility: input.visibility ?? 'public',
    currentVersionId: versionId,
    createdBy: input.createdBy ?? owner.id,
    createdAt: now,
    updatedAt: now,
  });
  await store.transaction(owner, async (tx) => {
    for (const [filename, content] of Object.entries(input.files)) {
      const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      const hash = sha256(bytes);
      await tx.putFile(hash, bytes);
      manifest[filename] = { sha256: hash, size: bytes.byteLength, contentType: contentTypeFor(filename) };
    }
    await tx.insertDashboard(record);
    await tx.insertVersion({ id: versionId, dashboardId: record.id, seq: 1, name: null, createdAt: now, createdBy: record.createdBy, files: manifest, spec: null });
  });
  return record;
}

/** Renames as the rename use case does: the old slug becomes an alias of the same dashboard. */
export async function renameDashboard(store: DashboardStore, dashboard: DashboardRecord, oldSlug: string, newSlug: string): Promise<void> {
  await store.transaction(dashboard.owner, async (tx) => {
    if (await tx.findAlias(dashboard.owner, newSlug)) await tx.deleteAlias(dashboard.owner, newSlug);
    await tx.updateDashboard(dashboard.id, { slug: newSlug, updatedAt: new Date() });
    await tx.insertAlias({ owner: dashboard.owner, slug: oldSlug, dashboardId: dashboard.id });
  });
}
