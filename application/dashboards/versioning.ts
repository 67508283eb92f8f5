import { randomUUID } from 'node:crypto';
import { nextVersionSeq, snapshotsToPrune } from '../../domain/versions.js';
import type { DashboardRecord, DashboardWrites, Manifest, VersionRecord } from '../ports/dashboard-store.js';

/**
 * Makes a new current version inside the caller's transaction: the replaced one becomes an automatic
 * snapshot, and unnamed snapshots beyond the newest twenty are pruned. Seq numbers follow the order
 * the owner lock granted, so concurrent publishes get one consistent order.
 */
export async function commitNewVersion(
  tx: DashboardWrites,
  dashboard: DashboardRecord,
  isNew: boolean,
  content: { files: Manifest; spec: unknown | null; createdBy: string; now: Date },
): Promise<VersionRecord> {
  const existing = isNew ? [] : await tx.listVersions(dashboard.id);
  const version: VersionRecord = {
    id: randomUUID(),
    dashboardId: dashboard.id,
    seq: nextVersionSeq(existing),
    name: null,
    createdAt: content.now,
    createdBy: content.createdBy,
    files: content.files,
    spec: content.spec,
  };
  const { id, owner, createdAt, createdBy, ...changes } = dashboard;
  if (isNew) {
    await tx.insertDashboard({ ...dashboard, currentVersionId: version.id });
  }
  await tx.insertVersion(version);
  if (!isNew) await tx.updateDashboard(id, { ...changes, currentVersionId: version.id });
  await pruneSnapshots(tx, dashboard.id, version.id, existing);
  return version;
}

/** Applies the retention rule to every version but the current one. */
export async function pruneSnapshots(
  tx: DashboardWrites,
  dashboardId: string,
  currentVersionId: string,
  versions?: VersionRecord[],
): Promise<void> {
  const all = versions ?? (await tx.listVersions(dashboardId));
  const doomed = snapshotsToPrune(all.filter((v) => v.id !== currentVersionId));
  if (doomed.length > 0) await tx.deleteVersions(doomed);
}
