import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Delivery subscriptions (email, Slack, generic webhook). Webhook URLs and signing secrets are sealed
 * with SecretBox; `shown_target` is what lists show (an email address, or a webhook's scheme and host).
 * A subscription may send a share link of its dashboard instead of the canonical URL (its token sealed too).
 * A subscription with a cron of its own is claimed by a compare-and-set on `next_run_at`, as refresh
 * schedules are; subscriptions go with their dashboard.
 */
export class DeliverySubscriptions1700000016600 implements MigrationInterface {
  name = 'DeliverySubscriptions1700000016600';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`
      CREATE TABLE delivery_subscriptions (
        id uuid PRIMARY KEY,
        dashboard_id uuid NOT NULL REFERENCES dashboards (id) ON DELETE CASCADE,
        owner_kind text NOT NULL,
        owner_id uuid NOT NULL,
        channel text NOT NULL CHECK (channel IN ('email', 'slack', 'webhook')),
        shown_target text NOT NULL,
        sealed_url text,
        sealed_secret text,
        sealed_share_token text,
        cron text,
        timezone text,
        next_run_at timestamptz,
        paused boolean NOT NULL DEFAULT false,
        consecutive_failures integer NOT NULL DEFAULT 0,
        last_error text,
        last_failure_at timestamptz,
        last_delivered_at timestamptz,
        created_by text,
        created_at timestamptz NOT NULL
      )`);
    await queryRunner.query(`CREATE INDEX delivery_subscriptions_owner_idx ON delivery_subscriptions (owner_kind, owner_id, created_at)`);
    await queryRunner.query(`CREATE INDEX delivery_subscriptions_dashboard_idx ON delivery_subscriptions (dashboard_id)`);
    await queryRunner.query(`CREATE INDEX delivery_subscriptions_due_idx ON delivery_subscriptions (next_run_at) WHERE next_run_at IS NOT NULL AND NOT paused`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE delivery_subscriptions`);
  }
}
