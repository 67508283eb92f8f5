import { inject, injectable } from 'inversify';
import { invalid } from '../../domain/errors.js';
import { validateFilename, validateSlug, DEFAULT_FILENAME } from '../../domain/names.js';
import { DashboardStore, type Manifest } from '../ports/dashboard-store.js';
import { Settings } from '../ports/settings.js';
import type { Principal } from '../ports/token-verifier.js';
import { ScopeResolver } from '../scope-resolver.js';
import { ServedFiles } from '../hosting/served-files.js';
import { loadDashboard, noDashboardInAccount, type DashboardRef } from './lookup.js';
import { dashboardView, type DashboardView } from './views.js';

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
  include_body?: boolean | null;
  filename?: string | null;
}

/** get_dashboard: metadata, URL, files and current version; a file's body on request. */
@injectable()
export class GetDashboard {
  constructor(
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(ScopeResolver) private readonly scopes: ScopeResolver,
    @inject(Settings) private readonly settings: Settings,
    @inject(ServedFiles) private readonly served: ServedFiles,
  ) {}

  async execute(principal: Principal, query: DashboardRef & BodyRequest): Promise<{ dashboard: DashboardView; alias_of: string | null; body: BodyView | null }> {
    const target = await this.scopes.resolve(principal, query.workspace);
    const slug = validateSlug(query.slug);
    const includeBody = parseIncludeBody(query.include_body);
    const { dashboard, current, viaAlias } = await loadDashboard(this.store, target, slug, noDashboardInAccount(slug), true);
    const bodyFile = pickFilename(query.filename, current.files);
    return {
      dashboard: dashboardView(this.settings, target, dashboard, current),
      alias_of: viaAlias ? dashboard.slug : null,
      body: includeBody ? await readBody(this.store, (await this.served.manifest(dashboard)) ?? current.files, bodyFile) : null,
    };
  }
}
