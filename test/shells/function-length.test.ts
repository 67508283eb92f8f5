import { expect } from 'chai';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { API } from 'typescript/unstable/sync';
import { SyntaxKind, type Node, type SourceFile } from 'typescript/unstable/ast';

/** Functions in shells stay readable in one sitting: a body longer than this is split. */
const MAX_LINES = 60;

/**
 * Functions allowed past the limit, as `path#name`, each with the reason. Keep this list short: an entry
 * that no longer names a long function fails the test, so a split removes its allowance.
 */
const ALLOWED: Record<string, string> = {
  // Empty: every function in shells/ is within the limit. An entry needs a reason a reviewer accepts.
};

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

const FUNCTION_KINDS = new Set<SyntaxKind>([
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.FunctionExpression,
  SyntaxKind.ArrowFunction,
  SyntaxKind.MethodDeclaration,
  SyntaxKind.Constructor,
  SyntaxKind.GetAccessor,
  SyntaxKind.SetAccessor,
]);

interface LongFunction {
  key: string;
  line: number;
  lines: number;
}

/** The name a function is known by: its own, or the variable, property or call argument it is bound to. */
function nameOf(node: Node): string {
  const own = (node as { name?: { text?: string } }).name?.text;
  if (own) return own;
  const bound = (node.parent as { name?: { text?: string } } | undefined)?.name?.text;
  return bound ?? `(anonymous)`;
}

function longFunctions(file: SourceFile, relative: string): LongFunction[] {
  const found: LongFunction[] = [];
  const lineOf = (position: number) => file.getLineAndCharacterOfPosition(position).line + 1;
  const visit = (node: Node): void => {
    const body = (node as { body?: Node }).body;
    if (FUNCTION_KINDS.has(node.kind) && body) {
      const lines = lineOf(body.end) - lineOf(body.getStart(file)) + 1;
      if (lines > MAX_LINES) found.push({ key: `${relative}#${nameOf(node)}`, line: lineOf(node.getStart(file)), lines });
    }
    node.forEachChild(visit);
  };
  visit(file);
  return found;
}

/** The programs that hold shells/: the server's, and the browser scripts' (compiled on their own with DOM types). */
const PROJECTS = ['tsconfig.json', 'shells/koa/mcp/ui/browser/tsconfig.json'];

/** Every function in shells/ longer than the limit, read through the TypeScript compiler's own parser. */
function scanShells(): LongFunction[] {
  const api = new API({ cwd: root });
  try {
    const snapshot = api.updateSnapshot({ openProjects: PROJECTS.map((config) => path.join(root, config)) });
    const shells = path.join(root, 'shells') + path.sep;
    const names = new Set<string>();
    const found: LongFunction[] = [];
    for (const project of snapshot.getProjects()) {
      for (const name of project.program.getSourceFileNames()) {
        if (!path.resolve(name).startsWith(shells) || !name.endsWith('.ts') || name.endsWith('.d.ts') || names.has(name)) continue;
        names.add(name);
        found.push(...longFunctions(project.program.getSourceFile(name)!, path.relative(root, path.resolve(name)).split(path.sep).join('/')));
      }
    }
    expect(names.size, 'shells files scanned').to.be.greaterThan(50);
    expect([...names].some((name) => name.endsWith('/ui/browser/dashboard-view.ts')), 'the browser scripts are scanned').to.equal(true);
    return found;
  } finally {
    api.close();
  }
}

describe('Function length in shells', function () {
  this.timeout(60_000);
  let found: LongFunction[];
  before(() => {
    found = scanShells();
  });

  it(`keeps every function body in shells/ within ${MAX_LINES} lines, outside the allow-list`, () => {
    const over = found.filter((f) => !Object.hasOwn(ALLOWED, f.key)).map((f) => `${f.key} (line ${f.line}): ${f.lines} lines`);
    expect(over, 'split these functions').to.deep.equal([]);
  });

  it('allows only functions that are still long (a split removes its allowance)', () => {
    const stale = Object.keys(ALLOWED).filter((key) => !found.some((f) => f.key === key));
    expect(stale, 'remove these allow-list entries').to.deep.equal([]);
  });
});
