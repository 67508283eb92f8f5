import { DomainError } from './errors.js';

/**
 * The texts of the warehouse address policy's refusals (docs/decisions.md, "Refresh and connections"): a warehouse URL is a
 * user's instruction to open a socket from inside the service's network, so where it may lead is limited.
 */

export const privateWarehouseHost = (host: string, address: string) =>
  new DomainError(
    'forbidden',
    `The warehouse host "${host}"${address === host ? '' : ` resolves to ${address}, which`} is on a private network; ` +
      'this service only connects to public warehouses. Its operator can allow private networks with ALLOW_PRIVATE_WAREHOUSES=true.',
  );

export const serviceOwnDatabase = () => new DomainError('forbidden', "That URL is this service's own database; add your warehouse instead.");

/** Always refused: a socket is on this machine, and which server it leads to cannot be told from its path. */
export const socketWarehouseHost = (path: string) =>
  new DomainError(
    'forbidden',
    `The warehouse URL names a Unix socket ("${path}"); this service only connects to warehouses over the network.`,
  );

/** The driver would read these files from the service's own disk. */
export const localFileParameters = (names: string[]) =>
  new DomainError(
    'forbidden',
    `The warehouse URL may not name files on this service's machine (${names.join(', ')}); ` +
      'use sslmode=require or sslmode=verify-full without them.',
  );
