/**
 * The layer check: dependency-cruiser with the rules in .dependency-cruiser.cjs over the TypeScript
 * sources. dependency-cruiser reads TypeScript only through the TypeScript 5 compiler API, which
 * TypeScript 7 no longer has, so each source is first turned into JavaScript by esbuild with every import
 * kept, type-only ones included (they count as dependencies too). Run it with `npm run check:layers`;
 * `npm test` runs it before mocha (docs/decisions/0120-layer-check.md).
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cruise, type IViolation } from 'dependency-cruiser';
import { transformSync } from 'esbuild';

/** The folders the rules speak of, relative to the repository root. */
export const LAYER_FOLDERS = ['shared', 'domain', 'application', 'adapters', 'shells'];

export const REPOSITORY_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export interface LayerReport {
  /** Source files read (a check that read none proves nothing). */
  files: number;
  violations: Array<{ rule: string; from: string; to: string }>;
}

/** Checks the folders under `root` against the rules of the repository's .dependency-cruiser.cjs. */
export async function checkLayers(root = REPOSITORY_ROOT, folders = LAYER_FOLDERS): Promise<LayerReport> {
  const config = createRequire(import.meta.url)(join(REPOSITORY_ROOT, '.dependency-cruiser.cjs'));
  const scratch = mkdtempSync(join(tmpdir(), 'dashpub-layers-'));
  try {
    let files = 0;
    for (const folder of folders) files += mirrorAsJavaScript(root, folder, scratch);
    const result = await cruise(folders, { ...config.options, baseDir: scratch, validate: true, ruleSet: { forbidden: config.forbidden } });
    if (typeof result.output === 'string') throw new Error('dependency-cruiser answered text, not a cruise result');
    return { files, violations: result.output.summary.violations.map(describe) };
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Writes each `.ts` under root/folder as `.js` under scratch/folder, its imports unchanged; returns the count. */
function mirrorAsJavaScript(root: string, folder: string, scratch: string): number {
  mkdirSync(join(scratch, folder), { recursive: true });
  let count = 0;
  for (const entry of readdirSync(join(root, folder), { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.d.ts')) continue;
    const source = join(entry.parentPath, entry.name);
    const target = join(scratch, source.slice(root.length).replace(/^[/\\]+/, '')).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, withTypeImportsKept(readFileSync(source, 'utf8')));
    count++;
  }
  return count;
}

/**
 * `import type`/`export type … from` become plain imports, and esbuild keeps every import as written
 * (verbatimModuleSyntax): the JavaScript is never run, only read for what it imports.
 */
function withTypeImportsKept(typescript: string): string {
  const plain = typescript.replace(/^(\s*)import type\s/gm, '$1import ').replace(/^(\s*)export type(\s*[{*])/gm, '$1export$2');
  return transformSync(plain, {
    loader: 'ts',
    format: 'esm',
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, experimentalDecorators: true } },
  }).code;
}

function describe(violation: IViolation): { rule: string; from: string; to: string } {
  const to = violation.cycle ? violation.cycle.map((step) => step.name).join(' -> ') : violation.to;
  return { rule: violation.rule.name, from: violation.from, to };
}

// `node dist/test/architecture/layers.js`: the report, and exit code 1 on any violation.
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const report = await checkLayers();
  for (const v of report.violations) console.error(`${v.rule}: ${v.from} -> ${v.to}`);
  console.log(`layers: ${report.files} files, ${report.violations.length} violation(s) of .dependency-cruiser.cjs`);
  if (report.violations.length > 0 || report.files === 0) process.exitCode = 1;
}
