import { injectable } from 'inversify';
import { invalid, typeName } from '../../domain/errors.js';
import type { SqlValidator, ValidatedSql } from '../../application/ports/sql-validator.js';

export const MAX_SQL_CHARS = 100_000;

/**
 * Statement kinds whose leading keyword would mislead in a refusal (WITH ... INSERT starts with WITH);
 * every other kind is named by its leading keyword as written.
 */
const KINDS: Record<string, string> = {
  InsertStmt: 'INSERT',
  UpdateStmt: 'UPDATE',
  DeleteStmt: 'DELETE',
  MergeStmt: 'MERGE',
  CreateTableAsStmt: 'CREATE TABLE AS',
};
const MODIFYING = ['InsertStmt', 'UpdateStmt', 'DeleteStmt', 'MergeStmt'];
const LOCKS: Record<string, string> = {
  LCS_FORUPDATE: 'FOR UPDATE',
  LCS_FORNOKEYUPDATE: 'FOR NO KEY UPDATE',
  LCS_FORSHARE: 'FOR SHARE',
  LCS_FORKEYSHARE: 'FOR KEY SHARE',
};
const COMMENTS = ['SQL_COMMENT', 'C_COMMENT'];

type LibpgQuery = typeof import('libpg-query');

/**
 * libpg-query, imported and its WASM module loaded on the first validation: importing it starts loading
 * the module at once, reserving about 130 MB of WASM memory and adding about 5 MiB to the resident size of
 * every process, a server that never checks a query included (docs/decisions/0043-large-body-decoding.md).
 */
let loading: Promise<LibpgQuery> | undefined;
let libpg: LibpgQuery;

interface RawStatement {
  stmt?: Record<string, unknown>;
  stmt_location?: number;
  stmt_len?: number;
}

/**
 * Uses the real PostgreSQL grammar (libpg-query, WASM), so what passes here is what the server would
 * parse. Only the parse tree decides; the text is never inspected with patterns.
 */
@injectable()
export class LibpgQueryValidator implements SqlValidator {
  async validate(sql: string): Promise<ValidatedSql> {
    if (typeof sql !== 'string') throw invalid(`sql must be a string (got ${typeName(sql)})`);
    if (sql.trim() === '') throw invalid('sql must not be empty');
    if (sql.length > MAX_SQL_CHARS) throw invalid(`sql is ${sql.length} characters, over the ${MAX_SQL_CHARS}-character limit`);
    // The C parser stops at NUL, so whatever follows one would never be checked.
    if (sql.includes('\0')) throw invalid('sql must not contain NUL characters');
    loading ??= import('libpg-query').then(async (module) => {
      await module.loadModule();
      return module;
    });
    libpg = await loading;

    const statements = parseStatements(sql);
    if (statements.length === 0) throw invalid('sql must contain a SELECT statement (got only comments)');
    if (statements.length > 1) throw invalid(`sql must be exactly one statement (got ${statements.length})`);
    const [statement] = statements as [RawStatement];
    const [kind, node] = Object.entries(statement.stmt ?? {})[0] ?? ['', undefined];
    const tokens = statementTokens(sql, statement);
    if (kind !== 'SelectStmt') {
      const name = KINDS[kind] ?? tokens[0]?.toUpperCase() ?? kind;
      throw invalid(`sql must be a read-only SELECT or WITH ... SELECT (got ${name})`);
    }
    checkTree(node);
    return { statement: tokens.join('') };
  }
}

function parseStatements(sql: string): RawStatement[] {
  try {
    return libpg.parseSync(sql).stmts as RawStatement[];
  } catch (err) {
    if (libpg.hasSqlDetails(err) && err.sqlDetails) {
      // libpg-query reports 0-based; Postgres itself (and psql) count characters from 1.
      throw invalid(`${err.sqlDetails.message} (position ${err.sqlDetails.cursorPosition + 1})`);
    }
    throw invalid(`sql could not be parsed: ${(err as Error).message}`);
  }
}

/**
 * Walks the whole tree: a modifying CTE, INTO or locking clause may sit in any subquery. Iterative,
 * because a long UNION chain nests thousands of levels deep.
 */
function checkTree(root: unknown): void {
  const pending: unknown[] = [root];
  while (pending.length > 0) {
    const node = pending.pop();
    if (Array.isArray(node)) {
      for (const item of node) pending.push(item);
      continue;
    }
    if (typeof node !== 'object' || node === null) continue;
    for (const [key, child] of Object.entries(node)) {
      if (MODIFYING.includes(key)) throw invalid(`sql must be read-only (got ${KINDS[key]} in a WITH clause)`);
      if (key === 'intoClause') throw invalid('sql must not use SELECT ... INTO, which creates a table; select the rows instead');
      if (key === 'lockingClause' && Array.isArray(child)) {
        const strength = (child[0] as { LockingClause?: { strength?: string } })?.LockingClause?.strength ?? '';
        throw invalid(`sql must not lock rows (got ${LOCKS[strength] ?? 'a locking clause'})`);
      }
      pending.push(child);
    }
  }
}

/**
 * The statement rebuilt from its own tokens: comments dropped and any gap shrunk to one space.
 * Token texts are exact slices of the input, so literals and quoted names survive byte for byte.
 */
function statementTokens(sql: string, statement: RawStatement): string[] {
  const start = statement.stmt_location ?? 0;
  const end = statement.stmt_len ? start + statement.stmt_len : Number.POSITIVE_INFINITY;
  const pieces: string[] = [];
  let last = -1;
  for (const token of libpg.scanSync(sql).tokens) {
    if (token.start < start || token.end > end || COMMENTS.includes(token.tokenName)) continue;
    if (last !== -1 && token.start > last) pieces.push(' ');
    pieces.push(token.text);
    last = token.end;
  }
  return pieces;
}
