export const WarehouseAddressPolicy = Symbol.for('WarehouseAddressPolicy');
/**
 * Where a warehouse URL may lead. Asked when a connection is created and again before every
 * connection to the warehouse, because the name's DNS records may change after creation.
 */
export interface WarehouseAddressPolicy {
  /**
   * Resolves when the service may connect to `url`. Throws DomainError('forbidden') saying why not (see
   * domain/warehouse-refusals.ts), or DomainError('unavailable') when the host cannot be resolved.
   */
  check(url: string): Promise<void>;
}
