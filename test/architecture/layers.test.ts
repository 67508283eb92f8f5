import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { expect } from 'chai';
import { checkLayers, LAYER_FOLDERS } from './layers.js';

/** A scratch tree of one-line modules: path → its source. */
function scratchTree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'dashpub-layer-fixture-'));
  for (const folder of LAYER_FOLDERS) mkdirSync(join(root, folder), { recursive: true });
  for (const [path, source] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), source);
  }
  return root;
}

async function rulesBroken(files: Record<string, string>): Promise<string[]> {
  const root = scratchTree(files);
  try {
    const report = await checkLayers(root);
    return [...new Set(report.violations.map((v) => v.rule))].sort();
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

describe('layer rules (dependency-cruiser, .dependency-cruiser.cjs)', () => {
  it('hold for every source file of the repository', async () => {
    const report = await checkLayers();
    expect(report.files).to.be.greaterThan(200);
    expect(report.violations).to.deep.equal([]);
  });

  it('allow what the layers may import', async () => {
    const broken = await rulesBroken({
      'shared/cache.ts': 'export class Cache {}\n',
      'domain/rule.ts': "import { Cache } from '../shared/cache.js';\nexport const rule = () => new Cache();\n",
      'application/ports/store.ts': "import type { rule } from '../../domain/rule.js';\nexport type Store = { r: typeof rule };\n",
      'application/use-case.ts': "import { createHash } from 'node:crypto';\nimport type { Store } from './ports/store.js';\nexport const run = (s: Store) => createHash('sha256');\n",
      'adapters/store.ts': "import type { Store } from '../application/ports/store.js';\nexport const store = {} as Store;\n",
      'shells/root.ts': "import { store } from '../adapters/store.js';\nimport { run } from '../application/use-case.js';\nexport const go = () => run(store);\n",
    });
    expect(broken).to.deep.equal([]);
  });

  it('catch each kind of violation, type-only imports included', async () => {
    expect(await rulesBroken({ 'shared/a.ts': "import { x } from '../domain/x.js';\nexport const a = x;\n", 'domain/x.ts': 'export const x = 1;\n' })).to.deep.equal(['shared-imports-nothing']);
    expect(await rulesBroken({ 'domain/a.ts': "import type { X } from '../application/x.js';\nexport type A = X;\n", 'application/x.ts': 'export type X = 1;\n' })).to.deep.equal(['domain-imports-only-domain']);
    expect(await rulesBroken({ 'domain/a.ts': "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;\n" })).to.deep.equal(['domain-imports-only-domain']);
    expect(await rulesBroken({ 'application/a.ts': "import { X } from '../adapters/x.js';\nexport const a = X;\n", 'adapters/x.ts': 'export const X = 1;\n' })).to.deep.equal([
      'application-imports-no-adapter-or-shell',
    ]);
    expect(await rulesBroken({ 'application/a.ts': "import { connect } from 'node:net';\nexport const a = connect;\n" })).to.deep.equal(['application-does-no-io']);
    expect(await rulesBroken({ 'adapters/a.ts': "import { type X } from '../shells/x.js';\nexport type A = X;\n", 'shells/x.ts': 'export type X = 1;\n' })).to.deep.equal(['adapters-import-no-shell']);
    expect(await rulesBroken({ 'adapters/a.ts': "import { Cache } from '../application/hosting/cache.js';\nexport const a = Cache;\n", 'application/hosting/cache.ts': 'export const Cache = 1;\n' })).to.deep.equal([
      'adapters-import-only-ports-of-application',
    ]);
    expect(await rulesBroken({ 'shells/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n", 'shells/b.ts': "import type { a } from './a.js';\nexport const b = 1 as unknown as typeof a;\n" })).to.include('no-module-cycle');
    expect(
      await rulesBroken({
        'application/dashboards/owner.ts': "import { manage } from '../refresh/manage.js';\nexport const owner = manage;\n",
        'application/refresh/manage.ts': "import { lookup } from '../dashboards/lookup.js';\nexport const manage = lookup;\n",
        'application/dashboards/lookup.ts': 'export const lookup = 1;\n',
      }),
    ).to.deep.equal(['no-folder-cycle']);
  });
});
