import { DomainError } from './errors.js';

/**
 * The texts of the warehouse address policy's refusals (docs/decisions/0016-warehouse-address-policy.md): a warehouse URL is a
 * user's instruction to open a socket from inside the service's network, so where it may lead is limited.
 */

export const privateWarehouseHost = (host: string, address: string) =>
  new DomainError(
    'forbidden',
    `The warehouse host "${host}"${address === host ? '' : ` resolves to ${address}, which`} is on a private network; ` +
      'this service only connects to public warehouses. Its operator can allow private networks with ALLOW_PRIVATE_WAREHOUSES=true.',
  );

export const serviceOwnDatabase = () =>
  new DomainError('forbidden', "That URL leads to this service's own database server; add your warehouse, on a server of its own, instead.");

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

/** The predefined roles that read or write the server's files, run programs on it, or read every session's queries. */
export const SERVER_ROLES = ['pg_read_server_files', 'pg_write_server_files', 'pg_execute_server_program', 'pg_monitor'] as const;

/**
 * A role that can reach beyond its own tables (the server's files, its programs, other sessions'
 * queries) is refused on every connection, so a URL that slips past the address check still reads no
 * more than the role's own tables.
 */
export const privilegedWarehouseRole = (role: string, superuser: boolean, memberships: string[]) =>
  new DomainError(
    'forbidden',
    `The warehouse role "${role}" ${superuser ? 'is a superuser' : `is a member of ${memberships.join(', ')}`}; ` +
      "such a role reaches its database server's files, programs or other sessions' queries, so this service does not connect as it. " +
      `Create a read-only role (not a superuser, and a member of none of ${SERVER_ROLES.join(', ')}), ` +
      'grant it SELECT on the tables to publish, and connect as that role.',
  );
