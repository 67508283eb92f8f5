import { inject, injectable } from 'inversify';
import { isRefreshable, parseDashboardSpec, queryIds } from '../../domain/dashboard-spec.js';
import { DomainError, isDomainError } from '../../domain/errors.js';
import { bindParams, defaultValues } from '../../domain/spec-params.js';
import { subdomainOf } from '../../domain/scope.js';
import { Clock } from '../ports/clock.js';
import { DashboardAddresses } from '../ports/dashboard-addresses.js';
import { PageRenderer } from '../ports/page-renderer.js';
import type { PreparedSpec, SpecPublisher } from '../ports/spec-publisher.js';
import { SqlValidator } from '../ports/sql-validator.js';
import { checkSpecQueries, runSpecQueries } from './run-queries.js';
import { renderSpecFiles } from './render-spec.js';

/**
 * Spec mode of publish_dashboard. An inline-data spec renders as is (static); a spec with queries has
 * each SQL checked, then runs once on the connection so the first version already shows data (a dry run
 * prepares each query there instead, fetching nothing), on the connection the publish use case found usable (looked up once, there).
 */
@injectable()
export class SpecPublisherService implements SpecPublisher {
  constructor(
    @inject(SqlValidator) private readonly validator: SqlValidator,
    @inject(PageRenderer) private readonly renderer: PageRenderer,
    @inject(DashboardAddresses) private readonly addresses: DashboardAddresses,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async prepare(input: Parameters<SpecPublisher['prepare']>[0]): Promise<PreparedSpec> {
    const spec = parseDashboardSpec(input.spec);
    const defaults = defaultValues(spec.params ?? []);
    for (const id of queryIds(spec)) {
      try {
        // Checked as it runs: placeholders as typed `$n` parameters, which the grammar knows.
        await this.validator.validate(bindParams(spec.queries![id]!.sql, spec.params ?? [], defaults).sql);
      } catch (err) {
        if (isDomainError(err)) throw new DomainError(err.code, `spec.queries.${id}.sql: ${err.message}`);
        throw err;
      }
    }
    const warnings: string[] = [];
    let data = {};
    if (isRefreshable(spec) && input.dryRun) await checkSpecQueries(spec, input.sql());
    else if (isRefreshable(spec)) {
      const result = await runSpecQueries(spec, input.sql());
      data = result.data;
      warnings.push(...result.warnings);
    }
    const files = await renderSpecFiles(this.renderer, spec, data, {
      fallbackTitle: input.fallbackTitle,
      renderedAt: this.clock.now(),
      url: this.addresses.pageUrl(subdomainOf(input.target), input.slug),
    });
    return { spec, files, warnings };
  }
}
