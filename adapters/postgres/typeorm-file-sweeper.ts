import type { DataSource } from 'typeorm';
import type { FileSweeper } from '../../application/ports/file-sweeper.js';

const BATCH = 500;

/**
 * The file sweep in SQL. A file is referenced when any version manifest names its hash, or a live render
 * that is still served (of an existing dashboard, made from its current version: see LiveFiles).
 * The stored_at test sits in the outer DELETE so that, when a concurrent putFile holds the row, the
 * DELETE waits for it and re-checks stored_at against the refreshed row: bytes stored again meanwhile
 * are kept. Batches keep each transaction short on a large table.
 */
export class TypeormFileSweeper implements FileSweeper {
  constructor(private readonly dataSource: DataSource) {}

  async sweep(graceSeconds: number): Promise<number> {
    let total = 0;
    for (;;) {
      const deleted: unknown[] = await this.dataSource.query(
        `WITH referenced AS (
           SELECT e.value->>'sha256' AS sha256 FROM dashboard_versions v CROSS JOIN LATERAL jsonb_each(v.files) e
           UNION
           SELECT e.value->>'sha256' FROM dashboard_live_renders r
             JOIN dashboards d ON d.id = r.dashboard_id AND d.current_version_id = r.version_id
             CROSS JOIN LATERAL jsonb_each(r.files) e
         )
         DELETE FROM files
         WHERE stored_at < now() - make_interval(secs => $1)
           AND sha256 IN (
             SELECT f.sha256 FROM files f
             WHERE f.stored_at < now() - make_interval(secs => $1)
               AND NOT EXISTS (SELECT 1 FROM referenced r WHERE r.sha256 = f.sha256)
             LIMIT ${BATCH})
         RETURNING sha256`,
        [graceSeconds],
      );
      const count = Array.isArray(deleted[0]) ? (deleted[0] as unknown[]).length : deleted.length;
      total += count;
      if (count < BATCH) return total;
    }
  }
}
