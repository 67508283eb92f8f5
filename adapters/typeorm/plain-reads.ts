import { createHash } from 'node:crypto';
import type { Pool, QueryResult } from 'pg';
import type { DataSource } from 'typeorm';
import { endsInLargeBuffer, LargeValueQuery } from './large-value-query.js';

type Row = Record<string, unknown>;

/**
 * Plain parameterised statements of the per-call path (the reads, and a publish's `dashpub_publish`). Prepared: each statement text gets a stable name (a
 * digest of the text, so one name never stands for two texts) and goes straight to TypeORM's pg pool;
 * `pg` parses it once per connection and PostgreSQL keeps its plan, so a call costs a Bind/Execute
 * instead of Parse, plan and a TypeORM query runner. Rows come back through the same `pg` type parsers
 * as through `DataSource.query`, and errors are `pg`'s own (what `isDatabaseUnavailable` looks at).
 * A statement ending in a large Buffer sends it without a copy (LargeValueQuery). Not prepared:
 * `DataSource.query`, as before.
 */
export class PlainReads {
  private readonly names = new Map<string, string>();
  private readonly pool: Pool | null;

  constructor(
    private readonly dataSource: DataSource,
    prepared: boolean,
  ) {
    this.pool = prepared ? ((dataSource.driver as unknown as { master: Pool }).master ?? null) : null;
  }

  async rows(text: string, values: unknown[]): Promise<Row[]> {
    if (!this.pool) return this.dataSource.query<Row[]>(text, values);
    const config = { name: this.nameOf(text), text, values };
    if (!endsInLargeBuffer(values)) return (await this.pool.query<Row>(config)).rows;
    // pg-pool answers a query object as it answers a config, with a promise of the result once its own
    // callback has given the client back (@types/pg types it as returning the query object).
    const answer = this.pool.query(new LargeValueQuery(config)) as unknown as Promise<QueryResult<Row>>;
    return (await answer).rows;
  }

  /** A handful of texts exist (the list's filters and the publish read), so the map stays small. */
  private nameOf(text: string): string {
    let name = this.names.get(text);
    if (name === undefined) {
      name = statementName(text);
      this.names.set(text, name);
    }
    return name;
  }
}

/** The name a statement text is prepared under: a digest of the text, so one name never stands for two texts. */
export function statementName(text: string): string {
  return `dashpub_${createHash('sha256').update(text).digest('hex').slice(0, 24)}`;
}
