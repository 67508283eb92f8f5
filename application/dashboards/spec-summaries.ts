import { inject, injectable } from 'inversify';
import { RENDERED_DATA, type DashboardSpec } from '../../domain/dashboard-spec.js';
import { lastRunOf, summarizeSpec, type LastRun, type SpecSummary } from '../../domain/spec-summary.js';
import { DashboardStore, type DashboardRecord, type VersionRecord } from '../ports/dashboard-store.js';
import { ServedFiles } from '../hosting/served-files.js';
import { BoundedCache } from '../../shared/bounded-cache.js';

/** data.json files whose columns are kept: a file is named by its content hash, so what it says never changes. */
const KEPT_RUNS = 256;

/** Summaries of a dashboard's spec, with each query's columns from the render being served (its data.json). */
@injectable()
export class SpecSummaries {
  private readonly runs = new BoundedCache<Record<string, LastRun>>({ capacity: KEPT_RUNS, ttlMs: Infinity });

  constructor(
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(ServedFiles) private readonly served: ServedFiles,
  ) {}

  /** `spec` is the current version's, or a patched one; queries in `changed` have not run since their SQL was set. */
  async summarize(dashboard: DashboardRecord, current: Pick<VersionRecord, 'id' | 'files'>, spec: DashboardSpec, changed: readonly string[] = []): Promise<SpecSummary> {
    const runs = { ...(await this.lastRun(dashboard, current)) };
    for (const id of changed) delete runs[id];
    return summarizeSpec(spec, runs);
  }

  private async lastRun(dashboard: DashboardRecord, current: Pick<VersionRecord, 'id' | 'files'>): Promise<Record<string, LastRun>> {
    const entry = (await this.served.manifest(dashboard, current))?.[RENDERED_DATA];
    if (!entry) return {};
    const kept = this.runs.get(entry.sha256, 0);
    if (kept) return kept;
    const bytes = await this.store.getFile(entry.sha256);
    if (!bytes) return {};
    let runs: Record<string, LastRun> = {};
    try {
      runs = lastRunOf(JSON.parse(Buffer.from(bytes).toString('utf8')));
    } catch {
      // A data.json that is not the renderer's (it never is, but the file is bytes): no columns rather than a failed read.
    }
    this.runs.set(entry.sha256, runs, 0);
    return runs;
  }
}
