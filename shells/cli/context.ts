import path from 'node:path';
import type { Command } from 'commander';
import type { Settings } from '../../application/ports/settings.js';
import { loadSettings } from '../config.js';
import type { AppContainer } from '../container.js';
import type { CliIo } from './io.js';
import { reportFailure, type GlobalOptions } from './output.js';
import { announceDatabase, type DatabaseUse } from './which-database.js';

/** Each program's io, kept beside it rather than in a global, so concurrent in-process runs stay apart. */
const ioOfProgram = new WeakMap<Command, CliIo>();

export function bindIo(program: Command, io: CliIo): void {
  ioOfProgram.set(program, io);
}

function ioOf(command: Command): CliIo {
  let root = command;
  while (root.parent) root = root.parent;
  const io = ioOfProgram.get(root);
  if (!io) throw new Error('dashpub command run outside runCli');
  return io;
}

/**
 * Options of the command and of every parent (so `--json` works before or after the subcommand), with the
 * run's io.
 */
export function optionsOf(command: Command): GlobalOptions & Record<string, unknown> {
  return { ...command.optsWithGlobals(), io: ioOf(command) } as GlobalOptions & Record<string, unknown>;
}

/** The settings a command runs with: from the run's environment, the data directory taken from its working directory. */
export function cliSettings(io: CliIo): Settings {
  const settings = loadSettings(io.env);
  return { ...settings, dataDir: path.resolve(io.cwd, settings.dataDir) };
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
      const settings = cliSettings(options.io);
      announceDatabase(settings, use, options);
      const [{ buildContainer }, { createLogger }] = await Promise.all([import('../container.js'), import('../logger.js')]);
      app = await buildContainer(settings, { role: 'cli', logger: createLogger(settings, options.io.stdout) });
      await run(app, options, ...args);
    } catch (err) {
      options.io.exitCode = reportFailure(err, options);
    } finally {
      await app?.close();
    }
  };
}
