export interface ValidatedSql {
  /** The one statement, comments and the trailing semicolon removed, safe to wrap in a subquery or EXPLAIN. */
  statement: string;
}

export const SqlValidator = Symbol.for('SqlValidator');
/**
 * Structural check of user SQL before it goes near a connection: exactly one read-only SELECT
 * (or WITH ... SELECT). Refusals are DomainError('invalid_argument') naming the problem; syntax
 * errors carry their 1-based character position. It does not make SQL safe on its own: runs still
 * happen in a read-only transaction with a timeout.
 */
export interface SqlValidator {
  validate(sql: string): Promise<ValidatedSql>;
}
