import { inject, injectable } from 'inversify';
import { parseConnectionRef, connectionRefText } from '../../domain/connection-ref.js';
import { invalid } from '../../domain/errors.js';
import { bindParams, checkQueryPlaceholders, defaultValues, parseParams } from '../../domain/spec-params.js';
import { ConnectionStore } from '../ports/connection-store.js';
import { SqlValidator } from '../ports/sql-validator.js';
import type { Principal } from '../ports/token-verifier.js';
import type { ResultColumn, TableInfo } from '../ports/warehouse.js';
import { ScopeResolver } from '../scope-resolver.js';
import { ConnectionAccess } from './connection-access.js';
import { connectionSummary, type ConnectionSummary } from './manage-connections.js';

export const SAMPLE_ROWS = 5;

/** introspect_schema's input: `"self"` or a connection id, as sent (its rules word the refusals). */
export interface ConnectionArg {
  connection?: string | null;
}

/** validate_cube_sql's input. */
export interface SqlCheck extends ConnectionArg {
  sql: string;
  /** The spec's `params` the query's placeholders name, as sent; checked and bound with their defaults. */
  params?: unknown;
}

/** A query that parsed, EXPLAINed and ran: its normalised statement, result columns and first rows. */
export interface ValidatedSql {
  connection: string;
  statement: string;
  columns: ResultColumn[];
  sampleRows: Array<Record<string, unknown>>;
  warnings: string[];
}

/**
 * list_connections, introspect_schema and validate_cube_sql. None takes a `workspace` argument: the
 * scope comes from the grant alone (personal lock and legacy grants: the personal account; a
 * workspace lock: that workspace).
 */
@injectable()
export class ConnectionQueries {
  constructor(
    @inject(ScopeResolver) private readonly scopes: ScopeResolver,
    @inject(ConnectionStore) private readonly store: ConnectionStore,
    @inject(ConnectionAccess) private readonly access: ConnectionAccess,
    @inject(SqlValidator) private readonly validator: SqlValidator,
  ) {}

  async list(principal: Principal): Promise<ConnectionSummary[]> {
    const target = await this.scopes.resolve(principal, undefined);
    const scope = target.kind === 'personal' ? { kind: 'personal' as const, userId: target.userId } : { kind: 'workspace' as const, workspaceId: target.workspaceId };
    return (await this.store.list(scope)).map(connectionSummary);
  }

  async introspect(principal: Principal, input: ConnectionArg): Promise<{ connection: string; tables: TableInfo[] }> {
    const ref = parseConnectionRef(input.connection);
    const target = await this.scopes.resolve(principal, undefined);
    const { sql } = await this.access.sqlTarget(principal, target, ref);
    return { connection: connectionRefText(ref), tables: await sql.introspect() };
  }

  async validate(principal: Principal, check: SqlCheck): Promise<ValidatedSql> {
    const ref = parseConnectionRef(check.connection);
    const params = check.params === undefined || check.params === null ? [] : parseParams(check.params, 'params');
    if (typeof check.sql !== 'string') throw invalid('sql must be a string');
    const used = checkQueryPlaceholders(params, check.sql, 'sql', 'params');
    const unused = params.find((p) => !used.has(p.id));
    if (unused) throw invalid(`params "${unused.id}" is never used by sql`);
    const bound = bindParams(check.sql, params, defaultValues(params));
    // Parse first: a syntax error needs no connection and costs nothing.
    const { statement } = await this.validator.validate(bound.sql);
    const target = await this.scopes.resolve(principal, undefined);
    const { sql, warnings } = await this.access.sqlTarget(principal, target, ref);
    await sql.explain(statement, bound.values);
    const sample = await sql.run(statement, { rowCap: SAMPLE_ROWS }, bound.values);
    return { connection: connectionRefText(ref), statement, columns: sample.columns, sampleRows: sample.rows, warnings };
  }
}
