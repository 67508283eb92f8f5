import type { DataSource } from 'typeorm';
import type { OwnerRef } from '../../domain/scope.js';
import type { Subscription, SubscriptionChannel } from '../../domain/subscriptions.js';
import type { NewSubscription, StoredSubscription, SubscriptionStore } from '../../application/ports/subscription-store.js';

interface Row {
  id: string;
  dashboard_id: string;
  owner_kind: string;
  owner_id: string;
  channel: string;
  shown_target: string;
  sealed_url: string | null;
  sealed_secret: string | null;
  sealed_share_token: string | null;
  cron: string | null;
  timezone: string | null;
  next_run_at: Date | null;
  paused: boolean;
  consecutive_failures: number;
  last_error: string | null;
  last_failure_at: Date | null;
  last_delivered_at: Date | null;
  created_by: string | null;
  created_at: Date;
}

function toSubscription(row: Row): Subscription {
  return {
    id: row.id,
    dashboardId: row.dashboard_id,
    channel: row.channel as SubscriptionChannel,
    shownTarget: row.shown_target,
    viaShareLink: row.sealed_share_token !== null,
    cron: row.cron,
    timezone: row.timezone,
    nextRunAt: row.next_run_at,
    paused: row.paused,
    consecutiveFailures: row.consecutive_failures,
    lastError: row.last_error,
    lastFailureAt: row.last_failure_at,
    lastDeliveredAt: row.last_delivered_at,
    createdBy: row.created_by,
    createdAt: row.created_at,
  };
}

const toStored = (row: Row): StoredSubscription => ({
  ...toSubscription(row),
  owner: { kind: row.owner_kind as OwnerRef['kind'], id: row.owner_id },
  sealedUrl: row.sealed_url,
  sealedSecret: row.sealed_secret,
  sealedShareToken: row.sealed_share_token,
});

/** Delivery subscriptions in PostgreSQL. */
export class PostgresSubscriptionStore implements SubscriptionStore {
  constructor(private readonly dataSource: DataSource) {}

  async insert(s: NewSubscription): Promise<void> {
    await this.dataSource.query(
      `INSERT INTO delivery_subscriptions (id, dashboard_id, owner_kind, owner_id, channel, shown_target, sealed_url, sealed_secret, sealed_share_token, cron, timezone, next_run_at, created_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [s.id, s.dashboardId, s.owner.kind, s.owner.id, s.channel, s.shownTarget, s.sealedUrl, s.sealedSecret, s.sealedShareToken, s.cron, s.timezone, s.nextRunAt, s.createdBy, s.createdAt],
    );
  }

  async countForDashboard(dashboardId: string): Promise<number> {
    const rows: Array<{ n: string }> = await this.dataSource.query(`SELECT count(*) AS n FROM delivery_subscriptions WHERE dashboard_id = $1`, [dashboardId]);
    return Number(rows[0]?.n ?? 0);
  }

  async list(owner: OwnerRef, dashboardId?: string): Promise<Subscription[]> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT * FROM delivery_subscriptions
       WHERE owner_kind = $1 AND owner_id = $2 AND ($3::uuid IS NULL OR dashboard_id = $3::uuid)
       ORDER BY created_at, id`,
      [owner.kind, owner.id, dashboardId ?? null],
    );
    return rows.map(toSubscription);
  }

  async findById(id: string): Promise<StoredSubscription | null> {
    const rows: Row[] = await this.dataSource.query(`SELECT * FROM delivery_subscriptions WHERE id = $1`, [id]);
    return rows[0] ? toStored(rows[0]) : null;
  }

  async delete(id: string): Promise<boolean> {
    // TypeORM answers UPDATE and DELETE with [rows, count].
    const [, count] = (await this.dataSource.query(`DELETE FROM delivery_subscriptions WHERE id = $1`, [id])) as [unknown, number];
    return count === 1;
  }

  async afterRefresh(dashboardId: string): Promise<Subscription[]> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT * FROM delivery_subscriptions WHERE dashboard_id = $1 AND cron IS NULL AND NOT paused ORDER BY created_at, id`,
      [dashboardId],
    );
    return rows.map(toSubscription);
  }

  async dueSchedules(now: Date, limit: number): Promise<Subscription[]> {
    const rows: Row[] = await this.dataSource.query(
      `SELECT * FROM delivery_subscriptions WHERE next_run_at IS NOT NULL AND next_run_at <= $1 AND NOT paused ORDER BY next_run_at LIMIT $2`,
      [now, limit],
    );
    return rows.map(toSubscription);
  }

  async claimSchedule(id: string, expected: Date, next: Date | null): Promise<boolean> {
    const [, count] = (await this.dataSource.query(
      `UPDATE delivery_subscriptions SET next_run_at = $3 WHERE id = $1 AND next_run_at = $2`,
      [id, expected, next],
    )) as [unknown, number];
    return count === 1;
  }

  async recordSuccess(id: string, at: Date): Promise<void> {
    await this.dataSource.query(`UPDATE delivery_subscriptions SET consecutive_failures = 0, paused = false, last_delivered_at = $2 WHERE id = $1`, [id, at]);
  }

  async recordFailure(id: string, error: string, at: Date, pauseAfter: number): Promise<Subscription | null> {
    const [rows] = (await this.dataSource.query(
      `UPDATE delivery_subscriptions
       SET consecutive_failures = consecutive_failures + 1, last_error = $2, last_failure_at = $3,
           paused = paused OR consecutive_failures + 1 >= $4
       WHERE id = $1 RETURNING *`,
      [id, error, at, pauseAfter],
    )) as [Row[], number];
    return rows[0] ? toSubscription(rows[0]) : null;
  }

  async recordAttemptError(id: string, error: string, at: Date): Promise<void> {
    await this.dataSource.query(`UPDATE delivery_subscriptions SET last_error = $2, last_failure_at = $3 WHERE id = $1`, [id, error, at]);
  }
}
