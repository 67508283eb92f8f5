import type { WarehouseAddressPolicy } from '../ports/warehouse-address-policy.js';
import type { BindValue } from '../../domain/spec-params.js';
import type { QueryResult, RunLimits, SqlTarget, TableInfo, Warehouse } from '../ports/warehouse.js';

/**
 * A Warehouse that asks the address policy before every connection: the connection test, each run,
 * EXPLAIN and introspection. A URL accepted at creation can later resolve elsewhere (its DNS changes,
 * or the operator turns ALLOW_PRIVATE_WAREHOUSES off), so creation alone cannot vouch for it. The
 * policy's DomainError is what the tool result, the connections page and a failed refresh show.
 */
export class PolicedWarehouse implements Warehouse {
  constructor(
    private readonly inner: Warehouse,
    private readonly policy: WarehouseAddressPolicy,
  ) {}

  open(url: string): SqlTarget {
    const target = this.inner.open(url);
    const checked = async <T>(work: () => Promise<T>): Promise<T> => {
      await this.policy.check(url);
      return work();
    };
    return {
      run: (sql: string, limits?: Partial<RunLimits>, values?: readonly BindValue[]): Promise<QueryResult> => checked(() => target.run(sql, limits, values)),
      explain: (sql: string, values?: readonly BindValue[]): Promise<void> => checked(() => target.explain(sql, values)),
      introspect: (): Promise<TableInfo[]> => checked(() => target.introspect()),
    };
  }

  async test(url: string): Promise<void> {
    await this.policy.check(url);
    await this.inner.test(url);
  }
}
