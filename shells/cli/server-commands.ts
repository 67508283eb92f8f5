import type { Command } from 'commander';
import { loadSettings } from '../config.js';
import { SECRET_KEY_REQUIRED } from '../../adapters/crypto/secret-box.js';
import { cliSettings, optionsOf } from './context.js';
import { print, reportFailure } from './output.js';
import { announceDatabase } from './which-database.js';
import type { RunningServer } from '../koa/server.js';
import type { Settings } from '../../application/ports/settings.js';

export function registerServerCommands(program: Command): void {
  program
    .command('serve')
    .description('run the service (PostgreSQL with DATABASE_URL, else the embedded database in DATA_DIR)')
    .action(async (_opts: unknown, command: Command) => {
      const options = optionsOf(command);
      try {
        const settings = loadSettings(options.io.env);
        // Said at start rather than at the first warehouse connection or upstream sign-in (see secret-box.ts).
        if (settings.databaseUrl && !settings.secretKey) throw new Error(SECRET_KEY_REQUIRED);
        announceDatabase(settings, 'write', options);
        const { startServer } = await import('../koa/server.js');
        const server = await startServer(settings);
        const apiUrl = settings.baseUrl;
        print(options, { mcp: `${apiUrl}/mcp`, app: settings.appUrl, dashboards: `${settings.dashboardScheme}://<handle>.${settings.dashboardDomain}/<slug>`, port: server.port }, () => [
          `dashpub ${settings.serviceName} 0.6.0 listening on ${settings.host}:${server.port}`,
          `  MCP endpoint:  ${apiUrl}/mcp`,
          `  Web app:       ${settings.appUrl}`,
          `  Dashboards:    ${settings.dashboardScheme}://<handle>.${settings.dashboardDomain}/<slug>`,
          `  Storage:       ${settings.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PostgreSQL in ${settings.dataDir}`}`,
        ]);
        const logger = server.app.logger;
        process.on('unhandledRejection', (err) => logger.error({ err }, 'unhandled promise rejection'));
        shutdownOnSignals(server, settings);
      } catch (err) {
        options.io.exitCode = reportFailure(err, options);
      }
    });

  program
    .command('migrate')
    .description('apply pending database migrations')
    .action(async (_opts: unknown, command: Command) => {
      const options = optionsOf(command);
      try {
        const settings = cliSettings(options.io);
        announceDatabase(settings, 'write', options);
        const [{ buildContainer }, { createLogger }] = await Promise.all([import('../container.js'), import('../logger.js')]);
        const app = await buildContainer(settings, { role: 'cli', logger: createLogger(settings, options.io.stdout) });
        const applied = app.migrationsApplied;
        await app.close();
        print(options, { applied }, () => (applied.length ? applied.map((m) => `applied ${m}`) : ['database is up to date']));
      } catch (err) {
        options.io.exitCode = reportFailure(err, options);
      }
    });
}

/** SIGINT and SIGTERM drain the server (once), with a backstop exit should the drain hang. */
function shutdownOnSignals(server: RunningServer, settings: Settings): void {
  const logger = server.app.logger;
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info({ signal, graceSeconds: settings.shutdownGraceSeconds }, 'shutting down: draining requests, stopping jobs');
    // A backstop should something hang after the drain: leave anyway, saying so.
    setTimeout(() => {
      logger.error({ signal }, 'shutdown did not finish in time; exiting');
      process.exit(1);
    }, (settings.shutdownGraceSeconds + 20) * 1000).unref();
    try {
      await server.close();
      logger.info({ signal }, 'shut down cleanly');
      process.exit(0);
    } catch (err) {
      logger.error({ err, signal }, 'shutdown failed');
      process.exit(1);
    }
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}
