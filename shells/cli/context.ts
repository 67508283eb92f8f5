import type { Command } from 'commander';
import { loadSettings } from '../config.js';
import type { AppContainer } from '../container.js';
import { reportFailure, type GlobalOptions } from './output.js';
import { announceDatabase, type DatabaseUse } from './which-database.js';

/** Options of the command and of every parent (so `--json` works before or after the subcommand). */
export function optionsOf(command: Command): GlobalOptions & Record<string, unknown> {
  return command.optsWithGlobals() as GlobalOptions & Record<string, unknown>;
}

/**
 * Runs one CLI action against the configured store: PostgreSQL with DATABASE_URL, else the running
 * server's embedded database (or the data directory itself when no server runs). It first says which; a
 * `read` command refuses rather than create an embedded database.
 */
export function action<A extends unknown[]>(
  run: (app: AppContainer, options: GlobalOptions & Record<string, unknown>, ...args: A) => Promise<void>,
  use: DatabaseUse = 'write',
) {
  return async (...argsAndCommand: unknown[]) => {
    const command = argsAndCommand[argsAndCommand.length - 1] as Command;
    const args = argsAndCommand.slice(0, -2) as A;
    const options = optionsOf(command);
    let app: AppContainer | undefined;
    try {
      // Loaded here, not at the top: `--help` and argument errors then answer without loading the service.
      const settings = loadSettings();
      announceDatabase(settings, use, options);
      const { buildContainer } = await import('../container.js');
      app = await buildContainer(settings, { role: 'cli' });
      await run(app, options, ...args);
    } catch (err) {
      process.exitCode = reportFailure(err, options);
    } finally {
      await app?.close();
    }
  };
}
