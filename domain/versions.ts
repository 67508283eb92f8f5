import { DomainError, invalid } from './errors.js';

export const AUTOMATIC_SNAPSHOTS_KEPT = 20;
export const NAMED_VERSIONS_KEPT = 30;
export const VERSIONS_LISTED = AUTOMATIC_SNAPSHOTS_KEPT + NAMED_VERSIONS_KEPT;
export const VERSION_NAME_MAX_LENGTH = 200;

export interface VersionSummary {
  id: string;
  seq: number;
  name: string | null;
}

/**
 * A new version's number: one past the highest a dashboard has kept. `dashpub_publish`
 * (adapters/postgres/sql/dashpub-publish.sql) numbers its versions by the same rule, in SQL.
 */
export function nextVersionSeq(versions: readonly Pick<VersionSummary, 'seq'>[]): number {
  return versions.reduce((highest, v) => Math.max(highest, v.seq), 0) + 1;
}

/**
 * Snapshots are every version but the current one. Named ones are exempt; of the unnamed, the newest
 * twenty stay and the rest are pruned, oldest first. `dashpub_publish` prunes by the same rule in SQL (its
 * `OFFSET p_snapshots_kept`); the dashboard store contract checks that both agree.
 */
export function snapshotsToPrune(snapshots: readonly VersionSummary[]): string[] {
  return [...snapshots]
    .filter((v) => v.name === null)
    .sort((a, b) => b.seq - a.seq)
    .slice(AUTOMATIC_SNAPSHOTS_KEPT)
    .map((v) => v.id);
}

/** `null` unnames; a string must be non-empty after trimming. */
export function parseVersionName(value: unknown): string | null {
  if (value === null) return null;
  if (typeof value !== 'string' || value.trim() === '') {
    throw invalid('name must be a non-empty string, or null to remove the name');
  }
  if (value.length > VERSION_NAME_MAX_LENGTH) {
    throw invalid(`name exceeds ${VERSION_NAME_MAX_LENGTH}-char limit (got ${value.length})`);
  }
  return value.trim();
}

export function checkNamedVersionRoom(namedCountExcludingThis: number): void {
  if (namedCountExcludingThis >= NAMED_VERSIONS_KEPT) {
    throw new DomainError(
      'limit_reached',
      `This dashboard already has ${NAMED_VERSIONS_KEPT} named versions, the most it keeps. ` +
        'Remove the name from one (update_dashboard_version with name null) before naming another.',
    );
  }
}
