import { inject, injectable } from 'inversify';
import { checkNamedVersionRoom, parseVersionName, VERSIONS_LISTED } from '../../domain/versions.js';
import { validateVersionId } from '../../domain/ids.js';
import { validateSlug } from '../../domain/names.js';
import { DomainError, invalid } from '../../domain/errors.js';
import { ownerOf, type Target } from '../../domain/scope.js';
import { Clock } from '../ports/clock.js';
import { DashboardStore, type DashboardReads, type DashboardRecord, type VersionRecord, type VersionSummary } from '../ports/dashboard-store.js';
import type { Principal } from '../ports/token-verifier.js';
import { ScopeResolver } from '../scope-resolver.js';
import { findBySlug, loadDashboard, noDashboardInAccount, noDashboardInTarget, type DashboardRef, type Loaded } from '../dashboard-lookup.js';
import { commitNewVersion, pruneSnapshots } from './versioning.js';
import { parseIncludeBody, pickFilename, readBody, type BodyRequest, type BodyView } from './get-dashboard.js';

/** One version of a dashboard, as a versions tool names it. */
export interface VersionRef extends DashboardRef {
  versionId: string;
}

/** A dashboard's snapshots: every version but the current one, newest first. */
export interface VersionList {
  target: Target;
  dashboard: DashboardRecord;
  /** Read without their specs (the store's summaries); a whole version presents the same. */
  versions: Array<VersionSummary | VersionRecord>;
}

/** One version of a dashboard (named or unnamed as it now is), with a file's body when asked for. */
export interface VersionFound {
  target: Target;
  dashboard: DashboardRecord;
  version: VersionRecord;
  body: BodyView | null;
}

/** A restore: the dashboard with its new current version, and the version whose content it copied. */
export interface VersionRestored {
  target: Target;
  dashboard: DashboardRecord;
  current: VersionRecord;
  restoredFrom: string;
}

const versionNotFound = (slug: string, id: string) =>
  new DomainError('not_found', `No version "${id}" of dashboard "${slug}"; list_dashboard_versions shows its versions`);

async function findVersion(reads: DashboardReads, loaded: Loaded, slug: string, versionId: string) {
  const version = await reads.getVersion(loaded.dashboard.id, versionId);
  if (!version) throw versionNotFound(slug, versionId);
  return version;
}

/** The four version tools; one class because they share lookup and retention rules. */
@injectable()
export class DashboardVersions {
  constructor(
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(ScopeResolver) private readonly scopes: ScopeResolver,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** Snapshots (every version but the current one), newest first, at most 50. */
  async list(principal: Principal, ref: DashboardRef): Promise<VersionList> {
    const target = await this.scopes.resolve(principal, ref.workspace);
    const slug = validateSlug(ref.slug);
    const loaded = await findBySlug(this.store, target, slug, noDashboardInAccount(slug), true);
    const snapshots = (await this.store.listVersionSummaries(loaded.dashboard.id))
      .filter((v) => v.id !== loaded.dashboard.currentVersionId)
      .slice(0, VERSIONS_LISTED);
    return { target, dashboard: loaded.dashboard, versions: snapshots };
  }

  /** The body is included unless `includeBody` is false. */
  async get(principal: Principal, query: VersionRef & BodyRequest): Promise<VersionFound> {
    const target = await this.scopes.resolve(principal, query.workspace);
    const slug = validateSlug(query.slug);
    const versionId = validateVersionId(query.versionId);
    const includeBody = query.includeBody === undefined || query.includeBody === null ? true : parseIncludeBody(query.includeBody);
    const loaded = await loadDashboard(this.store, target, slug, noDashboardInAccount(slug), true);
    const version = await findVersion(this.store, loaded, slug, versionId);
    return {
      target,
      dashboard: loaded.dashboard,
      version,
      body: includeBody ? await readBody(this.store, version.files, pickFilename(query.filename, version.files)) : null,
    };
  }

  /** Names (protects from the prune) or, with null, unnames a version. */
  async name(principal: Principal, command: VersionRef & { name: string | null }): Promise<Omit<VersionFound, 'body'>> {
    const target = await this.scopes.resolve(principal, command.workspace);
    const slug = validateSlug(command.slug);
    const versionId = validateVersionId(command.versionId);
    const name = parseVersionName(command.name);
    return this.store.transaction(ownerOf(target), async (tx) => {
      const loaded = await loadDashboard(tx, target, slug, noDashboardInTarget(target, slug), false);
      const version = await findVersion(tx, loaded, slug, versionId);
      const versions = await tx.listVersions(loaded.dashboard.id);
      if (name !== null && version.name === null) {
        checkNamedVersionRoom(versions.filter((v) => v.name !== null).length);
      }
      await tx.setVersionName(version.id, name);
      if (name === null) {
        await pruneSnapshots(tx, loaded.dashboard.id, loaded.dashboard.currentVersionId, versions.map((v) => (v.id === version.id ? { ...v, name } : v)));
      }
      return { target, dashboard: loaded.dashboard, version: { ...version, name } };
    });
  }

  /** Makes an earlier version's content the new current version; the replaced state becomes a snapshot. */
  async restore(principal: Principal, ref: VersionRef): Promise<VersionRestored> {
    const target = await this.scopes.resolve(principal, ref.workspace);
    const slug = validateSlug(ref.slug);
    const versionId = validateVersionId(ref.versionId);
    return this.store.transaction(ownerOf(target), async (tx) => {
      const loaded = await loadDashboard(tx, target, slug, noDashboardInTarget(target, slug), false);
      const source = await findVersion(tx, loaded, slug, versionId);
      if (source.id === loaded.dashboard.currentVersionId) {
        throw invalid(`version "${versionId}" is already the current version of "${slug}"`);
      }
      const now = this.clock.now();
      const dashboard = { ...loaded.dashboard, updatedAt: now };
      const version = await commitNewVersion(tx, dashboard, false, { files: source.files, spec: source.spec, createdBy: principal.userId, now });
      return { target, dashboard: { ...dashboard, currentVersionId: version.id }, current: version, restoredFrom: source.id };
    });
  }
}

