import type { DataSource } from 'typeorm';
import type { ListingVersions } from '../../application/ports/listing-versions.js';
import type { OwnerRef } from '../../domain/scope.js';
import { NamedStatements } from './named-statements.js';

const CURRENT = `SELECT version::text AS version FROM dashboard_listing_versions WHERE owner_id = $1::uuid`;

/**
 * Reads the number the triggers of migration 1700000015100 move with every change to an owner's listing:
 * one primary-key lookup, prepared on a PostgreSQL server of the operator's (`preparedStatements`, as the
 * dashboard store's hot reads), plain on the embedded database.
 */
export class TypeormListingVersions implements ListingVersions {
  private readonly reads: NamedStatements;

  constructor(dataSource: DataSource, options: { preparedStatements?: boolean } = {}) {
    this.reads = new NamedStatements(dataSource, options.preparedStatements ?? false);
  }

  async current(owner: OwnerRef): Promise<string | null> {
    const [row] = await this.reads.rows(CURRENT, [owner.id]);
    return row ? String(row.version) : null;
  }
}
