#!/usr/bin/env node
import 'reflect-metadata';
import { Command } from 'commander';
import { registerAccountCommands } from './account-commands.js';
import { registerDashboardCommands } from './dashboard-commands.js';
import { registerConnectionCommands } from './connection-commands.js';
import { registerServerCommands } from './server-commands.js';
import { registerGrantCommands } from './grant-commands.js';
import { registerClientKitCommands } from './client-kit-commands.js';
import { registerShareCommands } from './share-commands.js';
import { registerEmbedCommands } from './embed-commands.js';
import { registerSubscriptionCommands } from './subscription-commands.js';

const program = new Command('dashpub')
  .description('dashpub: publish dashboards from AI clients over MCP')
  .version('0.6.0')
  .option('--json', 'print machine-readable JSON')
  .showHelpAfterError()
  .exitOverride((err) => {
    process.exit(err.exitCode === 0 ? 0 : 2);
  });

registerServerCommands(program);
registerAccountCommands(program);
registerDashboardCommands(program);
registerConnectionCommands(program);
registerGrantCommands(program);
registerClientKitCommands(program);
registerShareCommands(program);
registerEmbedCommands(program);
registerSubscriptionCommands(program);

await program.parseAsync(process.argv);
