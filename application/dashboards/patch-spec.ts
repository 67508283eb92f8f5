import { inject, injectable } from 'inversify';
import type { DashboardSpec } from '../../domain/dashboard-spec.js';
import { DomainError, invalid, isDomainError } from '../../domain/errors.js';
import type { Target } from '../../domain/scope.js';
import { applySpecPatch } from '../../domain/spec-patch.js';
import type { SpecSummary } from '../../domain/spec-summary.js';
import { loadDashboard, noDashboardInTarget } from '../dashboard-lookup.js';
import { DashboardStore } from '../ports/dashboard-store.js';
import { SpecPublisher, type PreparedSpec } from '../ports/spec-publisher.js';
import type { SqlTarget } from '../ports/warehouse.js';
import { SpecSummaries } from './spec-summaries.js';

/** A patched spec ready to publish: rendered like a spec publish, with the version it was made from. */
export interface PreparedPatch extends PreparedSpec {
  /** The version the patch applied to: the publish is refused if another became current meanwhile. */
  basedOn: string;
  /** The resulting spec's summary, on a dry run (what the dry run answers instead of writing). */
  summary: SpecSummary | null;
}

/**
 * publish_dashboard's `patch`: the dashboard's current spec with the operations applied, then checked and
 * rendered exactly as a spec publish is, refusals naming the operation that caused them.
 */
@injectable()
export class PatchSpec {
  constructor(
    @inject(DashboardStore) private readonly store: DashboardStore,
    @inject(SpecPublisher) private readonly specs: SpecPublisher,
    @inject(SpecSummaries) private readonly summaries: SpecSummaries,
  ) {}

  async prepare(input: { target: Target; slug: string; patch: unknown; sql: () => SqlTarget; dryRun: boolean; fallbackTitle: string }): Promise<PreparedPatch> {
    // Another owner's dashboard of the same slug is simply not found: the same refusal as a missing one.
    const { dashboard, current } = await loadDashboard(this.store, input.target, input.slug, noDashboardInTarget(input.target, input.slug), false);
    if (current.spec === null) {
      throw invalid(`dashboard "${input.slug}" was published as a file and has no spec to patch; publish a spec to it instead`);
    }
    const patched = applySpecPatch(current.spec, input.patch);
    let prepared: PreparedSpec;
    try {
      prepared = await this.specs.prepare({ target: input.target, slug: input.slug, spec: patched.spec, sql: input.sql, dryRun: input.dryRun, fallbackTitle: input.fallbackTitle });
    } catch (err) {
      if (isDomainError(err)) throw new DomainError(err.code, patched.blame(err.message));
      throw err;
    }
    const summary = input.dryRun
      ? await this.summaries.summarize(dashboard, current, prepared.spec as DashboardSpec, patched.changedQueries)
      : null;
    return { ...prepared, basedOn: current.id, summary };
  }
}
