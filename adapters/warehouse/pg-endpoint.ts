import { createRequire } from 'node:module';
import { invalid } from '../../domain/errors.js';
import { localFileParameters } from '../../domain/warehouse-refusals.js';

/** Where the `pg` driver connects for a URL: a TCP host and port, or a Unix socket directory. */
export type PgEndpoint =
  | { kind: 'tcp'; host: string; port: number; database: string }
  | { kind: 'socket'; path: string; port: number; database: string };

interface ConnectionParameters {
  host: string;
  port: number;
  database: string;
  isDomainSocket: boolean;
}

/**
 * pg's own resolution of a connection string (query `host`/`port` overriding the authority, PG*
 * environment fallbacks, the database defaulting to the user), so the policy judges exactly the place
 * the driver then connects to: a parser of our own could be told one host while pg is told another.
 */
const ConnectionParametersClass = createRequire(import.meta.url)('pg/lib/connection-parameters.js') as new (
  url: string,
) => ConnectionParameters;

/** Query parameters pg reads as paths on this machine (certificates, keys), and reads while parsing. */
const FILE_PARAMETERS = ['sslcert', 'sslkey', 'sslrootcert'];

/** `allowFiles` only for the operator's own DATABASE_URL: a user must not make the service read its disk. */
export function pgEndpoint(url: string, options: { allowFiles?: boolean } = {}): PgEndpoint {
  if (!options.allowFiles) {
    // Checked on the loosely percent-decoded text, before pg's parser gets to open any of them.
    const loose = url.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))).toLowerCase();
    const files = FILE_PARAMETERS.filter((name) => new RegExp(`[?&]${name}=`).test(loose));
    if (files.length > 0) throw localFileParameters(files);
  }
  let params: ConnectionParameters;
  try {
    params = new ConnectionParametersClass(url);
  } catch {
    throw invalid('url must be a postgres:// connection URL');
  }
  const port = Number.isInteger(params.port) ? params.port : 5432;
  const database = String(params.database ?? '');
  if (params.isDomainSocket) return { kind: 'socket', path: params.host, port, database };
  return { kind: 'tcp', host: params.host, port, database };
}
