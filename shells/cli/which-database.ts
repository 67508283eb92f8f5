import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Settings } from '../../application/ports/settings.js';
import { DomainError } from '../../domain/errors.js';
import type { GlobalOptions } from './output.js';

/** Whether a command only reads (it must never create a database) or may write (it creates one if missing). */
export type DatabaseUse = 'read' | 'write';

/**
 * Says on stderr which database the command is about to open, so an operator in the wrong directory sees it;
 * a read-only command refuses, naming where it looked, rather than create an empty embedded database.
 */
export function announceDatabase(settings: Pick<Settings, 'databaseUrl' | 'dataDir'>, use: DatabaseUse, options: GlobalOptions): void {
  say(options, databaseLine(settings, use));
}

export function databaseLine(settings: Pick<Settings, 'databaseUrl' | 'dataDir'>, use: DatabaseUse): string {
  if (settings.databaseUrl) return `using the database at ${serverOf(settings.databaseUrl)}`;
  const dir = resolve(settings.dataDir);
  // The embedded database's files live in <dataDir>/pgdata (adapters/pglite/embedded-postgres.ts).
  if (existsSync(join(dir, 'pgdata'))) return `using the embedded database in ${dir}`;
  if (use === 'read') {
    throw new DomainError(
      'not_found',
      `no embedded database in ${dir}; run this where the data directory is, or set DATA_DIR to it, or DATABASE_URL to a PostgreSQL server`,
    );
  }
  return `creating the embedded database in ${dir}`;
}

/** host:port/database of a connection URL: never its user or password. */
export function serverOf(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.hostname || 'localhost'}:${parsed.port || '5432'}${parsed.pathname || '/'}`;
  } catch {
    return 'DATABASE_URL (not a URL this CLI can show)';
  }
}

function say(options: GlobalOptions, line: string): void {
  options.io.stderr.write(options.json ? `${JSON.stringify({ database: line })}\n` : `${line}\n`);
}
