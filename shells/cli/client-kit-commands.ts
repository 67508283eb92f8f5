import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { loadSettings } from '../config.js';
import { clientKitFiles, clientSetup } from '../client-kit/client-setup.js';
import { refuseUnlessMissingOrEmpty } from './archive-directory.js';
import { optionsOf } from './context.js';
import { print, reportFailure } from './output.js';

/**
 * `client-kit --out DIR`: writes this instance's Claude Code plugin marketplace (from BASE_URL and
 * SERVICE_NAME). Needs no database, so it runs without the service's store.
 */
export function registerClientKitCommands(program: Command): void {
  program
    .command('client-kit')
    .description("write a Claude Code plugin and marketplace for this instance's MCP server")
    .requiredOption('--out <dir>', 'the directory to create (must be missing or empty)')
    .action(async (_opts: unknown, command: Command) => {
      const options = optionsOf(command);
      try {
        const out = String(options.out);
        const target = path.resolve(options.io.cwd, out);
        await refuseUnlessMissingOrEmpty(out, target);
        const settings = loadSettings(options.io.env);
        const files = clientKitFiles(settings, path.basename(target));
        for (const file of files) {
          const where = path.join(target, ...file.path.split('/'));
          await mkdir(path.dirname(where), { recursive: true });
          await writeFile(where, file.content);
        }
        const setup = clientSetup(settings);
        const summary = {
          out: target,
          mcpUrl: setup.mcpUrl,
          server: setup.serverName,
          plugin: setup.plugin.name,
          marketplace: setup.plugin.marketplace,
          toolPrefix: setup.pluginToolPrefix,
          files: files.map((f) => f.path),
        };
        print(options, summary, () => [
          `wrote the ${setup.plugin.name} plugin for ${setup.mcpUrl} to ${target}:`,
          ...files.map((f) => `  ${f.path}`),
          'install it in Claude Code with:',
          `  claude plugin marketplace add ${target}`,
          `  claude plugin install ${setup.plugin.name}@${setup.plugin.marketplace}`,
        ]);
      } catch (err) {
        options.io.exitCode = reportFailure(err, options);
      }
    });
}
