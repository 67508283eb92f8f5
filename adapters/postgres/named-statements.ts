import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import type { DataSource } from 'typeorm';
import { poolOf } from './data-source.js';

type Row = Record<string, unknown>;

/**
 * The per-call statements of the dashboard store and the listing versions, reads and a publish's write alike.
 * With `prepared`, each statement text gets a stable name (a digest of the text, so one name never stands for
 * two texts) and goes to the DataSource's own `pg` pool (`poolOf`): `pg` parses it once per connection and
 * PostgreSQL keeps its plan, so a call costs a Bind/Execute instead of Parse, plan and a TypeORM query runner
 * (docs/decisions/0041-named-prepared-statements.md). Rows come back through the same `pg` type parsers as
 * through `DataSource.query`, and errors are `pg`'s own (what `isDatabaseUnavailable` looks at). Without
 * `prepared` (the embedded database, whose one session all connections share): `DataSource.query`.
 */
export class NamedStatements {
  private readonly names = new Map<string, string>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly prepared: boolean,
  ) {}

  async rows(text: string, values: unknown[]): Promise<Row[]> {
    const pool = this.pool();
    if (!pool) return this.dataSource.query<Row[]>(text, values);
    return (await pool.query<Row>({ name: this.nameOf(text), text, values })).rows;
  }

  private pool(): Pool | null {
    return this.prepared ? poolOf(this.dataSource) : null;
  }

  /** A handful of texts exist (the list's filters and the publish statements), so the map stays small. */
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
