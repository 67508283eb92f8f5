import { inject, injectable } from 'inversify';
import { invalid } from '../../domain/errors.js';
import { storedParams, type SpecParam } from '../../domain/spec-params.js';
import { validateFilename, validateSlug, DEFAULT_FILENAME } from '../../domain/names.js';
import type { Target } from '../../domain/scope.js';
import { DashboardStore, type DashboardRecord, type Manifest, type VersionRecord, type VersionSummary } from '../ports/dashboard-store.js';
import type { Principal } from '../ports/token-verifier.js';
import { ScopeResolver } from '../scope-resolver.js';
import { ServedFiles } from '../hosting/served-files.js';
import { loadDashboard, loadOutline, noDashboardInAccount, type DashboardRef } from '../dashboard-lookup.js';
import type { DashboardSpec } from '../../domain/dashboard-spec.js';
import type { SpecSummary } from '../../domain/spec-summary.js';
import { SpecSummaries } from './spec-summaries.js';

export const INLINE_BODY_LIMIT = 1_048_576;

export interface BodyView {
  filename: string;
  encoding: 'utf8' | 'base64';
  content: string;
  size: number;
}

/** Reads one file of a manifest as the host serves it: text as utf8, anything else base64. */
export async function readBody(store: DashboardStore, files: Manifest, filename: string): Promise<BodyView> {
  const entry = files[filename];
  if (!entry) throw invalid(`no file "${filename}" in this dashboard; files: ${Object.keys(files).sort().join(', ')}`);
  if (entry.size > INLINE_BODY_LIMIT) {
    throw invalid(`"${filename}" is ${entry.size} bytes, too large to return inline (limit ${INLINE_BODY_LIMIT}); open its URL instead`);
  }
  const bytes = await store.getFile(entry.sha256);
  if (!bytes) throw new Error(`file ${entry.sha256} is missing from storage`);
  const textual = /^(text\/|application\/(json|javascript|xml)|image\/svg\+xml)/.test(entry.contentType);
  return {
    filename,
    encoding: textual ? 'utf8' : 'base64',
    content: Buffer.from(bytes).toString(textual ? 'utf8' : 'base64'),
    size: entry.size,
  };
}

/** An explicit filename must exist; without one, index.html or else the first file. */
export function pickFilename(requested: unknown, files: Manifest): string {
  if (requested !== undefined && requested !== null) {
    if (typeof requested !== 'string') throw invalid('filename must be a string');
    return validateFilename(requested);
  }
  return DEFAULT_FILENAME in files ? DEFAULT_FILENAME : Object.keys(files).sort()[0];
}

export function parseIncludeBody(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw invalid('include_body must be a boolean');
  return value;
}

/** Which file's body to return, if any (null means not given, as for every optional argument). */
export interface BodyRequest {
  includeBody?: boolean | null;
  filename?: string | null;
}

/** get_dashboard's `summary: true`: the spec's outline (spec-summaries.ts) besides the usual answer. */
export interface SummaryRequest {
  summary?: boolean | null;
}

/** What get_dashboard found: the dashboard, its current version, and a file's body when asked for. */
export interface DashboardFound {
  target: Target;
  dashboard: DashboardRecord;
  /** get_dashboard reads it without its spec (a summary); the answer shows only whether it refreshes. */
  current: VersionSummary | VersionRecord;
  /** The dashboard's slug when the slug asked for was an alias left by a rename, else null. */
  aliasOf: string | null;
  body: BodyView | null;
  /** Only when asked for: the spec's summary, or null for a dashboard published as a file. */
  summary?: SpecSummary | null;
  /** The spec's parameters with their defaults; empty for a body dashboard or a spec without any. */
  params: SpecParam[];
}

/** get_dashboard: metadata, URL, files and current version; a file's body on request. */
@injectable()
export class GetDashboard {
  constructor(
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(ScopeResolver) private readonly scopes: ScopeResolver,
    @inject(ServedFiles) private readonly served: ServedFiles,
    @inject(SpecSummaries) private readonly summaries: SpecSummaries,
  ) {}

  async execute(principal: Principal, query: DashboardRef & BodyRequest & SummaryRequest): Promise<DashboardFound> {
    const target = await this.scopes.resolve(principal, query.workspace);
    const slug = validateSlug(query.slug);
    const includeBody = parseIncludeBody(query.includeBody);
    const withSpec = query.summary === true;
    // The spec (maybe megabytes) is read only for a summary; otherwise its parameters come with the version.
    const load = withSpec ? loadDashboard : loadOutline;
    const { dashboard, current, viaAlias } = await load(this.store, target, slug, noDashboardInAccount(slug), true);
    const bodyFile = pickFilename(query.filename, current.files);
    const found: DashboardFound = {
      target,
      dashboard,
      current,
      aliasOf: viaAlias ? dashboard.slug : null,
      body: includeBody ? await readBody(this.store, (await this.served.manifest(dashboard, current)) ?? current.files, bodyFile) : null,
      params: [],
    };
    const spec = 'spec' in current ? (current.spec as DashboardSpec | null) : null;
    found.params = storedParams('params' in current ? { params: current.params } : spec);
    if (withSpec) found.summary = spec ? await this.summaries.summarize(dashboard, current, spec) : null;
    return found;
  }
}
