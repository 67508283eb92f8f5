import 'reflect-metadata';
import { Command, CommanderError } from 'commander';
import { registerAccountCommands } from './account-commands.js';
import { registerDashboardCommands } from './dashboard-commands.js';
import { registerConnectionCommands } from './connection-commands.js';
import { registerServerCommands } from './server-commands.js';
import { registerGrantCommands } from './grant-commands.js';
import { registerClientKitCommands } from './client-kit-commands.js';
import { registerShareCommands } from './share-commands.js';
import { registerEmbedCommands } from './embed-commands.js';
import { registerSubscriptionCommands } from './subscription-commands.js';
import { bindIo } from './context.js';
import type { CliIo } from './io.js';

/** The `dashpub` program, writing through `io`; commander throws instead of exiting (runCli turns that into a code). */
function createProgram(io: CliIo): Command {
  const program = new Command('dashpub')
    .description('dashpub: publish dashboards from AI clients over MCP')
    .version('0.6.0')
    .option('--json', 'print machine-readable JSON')
    .showHelpAfterError()
    // Set before the subcommands are added: they copy the output and exit settings from their parent.
    .configureOutput({ writeOut: (text) => void io.stdout.write(text), writeErr: (text) => void io.stderr.write(text) })
    .exitOverride();
  bindIo(program, io);
  registerServerCommands(program);
  registerAccountCommands(program);
  registerDashboardCommands(program);
  registerConnectionCommands(program);
  registerGrantCommands(program);
  registerClientKitCommands(program);
  registerShareCommands(program);
  registerEmbedCommands(program);
  registerSubscriptionCommands(program);
  return program;
}

/**
 * Runs `dashpub args…` (without the node and script names) and resolves to its exit code: 0, 1 for a
 * refusal, 2 for a usage error (commander's, or help and version with 0), 3 when the service failed.
 */
export async function runCli(args: string[], io: CliIo): Promise<number> {
  try {
    await createProgram(io).parseAsync(args, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    throw err;
  }
  return io.exitCode;
}
