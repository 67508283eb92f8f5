import type { Command } from 'commander';
import { ExportDashboards } from '../../application/dashboards/export-dashboards.js';
import { ImportDashboards, type ImportReport } from '../../application/dashboards/import-dashboards.js';
import type { OperatorSelector } from '../../application/operator-target.js';
import { openArchive, startArchive } from './archive-directory.js';
import { action } from './context.js';
import { print } from './output.js';
import { progressReporter } from './progress.js';

const selectorOf = (options: Record<string, unknown>): OperatorSelector => ({
  owner: options.owner as string | undefined,
  workspace: options.workspace as string | undefined,
});

/** A usage error (exit code 2) before anything starts: the target needs exactly one of the two options. */
function requireOneTarget(command: Command): void {
  const { owner, workspace } = command.opts<{ owner?: string; workspace?: string }>();
  if ((owner === undefined) === (workspace === undefined)) {
    command.error(`error: ${command.name()} needs exactly one of --owner <handle> or --workspace <slug>`, { exitCode: 2, code: 'dashpub.usage' });
  }
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** `dashboard export` and `dashboard import`: move one owner's dashboards between owners or instances. */
export function registerArchiveCommands(dashboard: Command): void {
  registerExport(dashboard);
  registerImport(dashboard);
}

function registerExport(dashboard: Command): void {
  dashboard
    .command('export')
    .description('write one owner\'s dashboards (versions, aliases, schedules, files) to an archive directory')
    .option('--owner <handle>', 'a user\'s personal dashboards')
    .option('--workspace <slug>', 'a workspace\'s dashboards')
    .requiredOption('--out <dir>', 'the archive directory to create (must be missing or empty)')
    .hook('preAction', (_, command) => requireOneTarget(command))
    .action(
      action(async (app, options) => {
        const out = String(options.out);
        const pending = await startArchive(out, options.io.cwd);
        const progress = progressReporter(options.io.stderr);
        try {
          const summary = await app.container.get(ExportDashboards).execute(selectorOf(options), pending.sink, progress.update);
          progress.finish();
          await pending.complete(summary.manifest);
          const { manifest } = summary;
          const result = {
            out,
            source: manifest.source,
            exported: manifest.dashboards.length,
            versions: summary.versions,
            files: summary.files,
            bytes: summary.bytes,
            dashboards: manifest.dashboards.map((d) => ({ slug: d.slug, outcome: 'exported' })),
          };
          print(options, result, () => [
            `exported ${plural(result.exported, 'dashboard')} (${plural(result.versions, 'version')}, ${plural(result.files, 'file')}, ` +
              `${result.bytes} bytes) of ${manifest.source.kind} ${manifest.source.name} to ${out}`,
          ]);
        } catch (err) {
          progress.finish();
          await pending.abandon();
          throw err;
        }
      }, 'read'),
    );
}

function registerImport(dashboard: Command): void {
  dashboard
    .command('import')
    .description('import an archive made by `dashboard export` into one owner (existing slugs are skipped)')
    .option('--owner <handle>', 'into a user\'s personal dashboards')
    .option('--workspace <slug>', 'into a workspace\'s dashboards')
    .requiredOption('--from <dir>', 'the archive directory')
    .hook('preAction', (_, command) => requireOneTarget(command))
    .action(
      action(async (app, options) => {
        const from = String(options.from);
        const archive = await openArchive(from, options.io.cwd);
        const progress = progressReporter(options.io.stderr);
        let report: ImportReport;
        try {
          report = await app.container.get(ImportDashboards).execute(selectorOf(options), archive.manifest, archive.files, progress.update);
        } finally {
          progress.finish();
        }
        print(options, { from, ...report }, () => importLines(report));
        // Anything not imported is a refusal of part of the request.
        if (report.skipped + report.refused > 0) options.io.exitCode = 1;
      }),
    );
}

function importLines(report: ImportReport): string[] {
  const lines: string[] = [];
  for (const d of report.dashboards) {
    lines.push(`${d.slug}  ${d.outcome}${d.reason ? `: ${d.reason}` : ''}`);
    for (const warning of d.warnings) lines.push(`  warning: ${warning}`);
  }
  lines.push(
    `imported ${report.imported} of ${plural(report.dashboards.length, 'dashboard')} into ${report.target.kind} ${report.target.name}` +
      ` (${report.skipped} skipped, ${report.refused} refused)`,
  );
  return lines;
}
