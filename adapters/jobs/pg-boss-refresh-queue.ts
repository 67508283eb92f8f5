import PgBoss from 'pg-boss';
import type { DeliveryJob } from '../../application/ports/delivery-ports.js';
import type { RefreshJob, RefreshPending, RefreshQueue } from '../../application/ports/refresh-queue.js';

export const REFRESH_QUEUE = 'dashpub-refresh';
export const TICK_QUEUE = 'dashpub-refresh-tick';
export const FILE_SWEEP_QUEUE = 'dashpub-file-sweep';
export const DELIVERY_QUEUE = 'dashpub-delivery';
/** A delivery is tried once and retried this many times, the delay doubling from `deliveryRetryDelaySeconds`. */
export const DELIVERY_RETRIES = 3;

export interface RefreshWorkerHandlers {
  refresh(job: RefreshJob): Promise<void>;
  /** The scheduler tick: queues every due scheduled refresh and delivery. */
  tick(): Promise<void>;
  /** One delivery attempt; `final` when no retry follows. Throws to have it retried. */
  deliver(job: DeliveryJob, final: boolean): Promise<void>;
  /** Hourly housekeeping: frees file bytes no version or live render names any more. */
  sweepFiles(): Promise<void>;
}

export interface PgBossOptions {
  /** How often an idle worker looks for jobs. */
  pollingIntervalSeconds?: number;
  logger?: { error(data: object, message: string): void };
  /** How long `close` lets a running job finish before pg-boss gives up on it (default 10 s). */
  stopTimeoutMs?: number;
  /** The first delivery retry's delay (default 30 s), doubled for each later one. */
  deliveryRetryDelaySeconds?: number;
}

/**
 * Refresh jobs on pg-boss, in the service's own database (the embedded one included). The refresh
 * queue is `stately`: per dashboard (singletonKey) at most one job waits and one runs. The tick runs
 * on a pg-boss cron schedule, which pg-boss sends once per minute however many instances run; the
 * tick's own compare-and-set claims make each scheduled run happen once even if two ticks overlap.
 */
export class PgBossRefreshQueue implements RefreshQueue {
  private readonly boss: PgBoss;
  private ready: Promise<void> | undefined;
  private working = false;

  /**
   * `worker` instances run the refresh and tick workers and pg-boss's cron and maintenance; others
   * (the CLI, tests) only send jobs. pg-boss starts on first use, so a container that never touches
   * refreshes never opens its pool.
   */
  constructor(
    url: string,
    private readonly options: PgBossOptions & { worker: boolean },
  ) {
    this.boss = new PgBoss({
      connectionString: url,
      max: 4,
      schema: 'pgboss',
      application_name: 'dashpub-jobs',
      schedule: options.worker,
      supervise: options.worker,
      ...(options.worker ? { cronMonitorIntervalSeconds: 5, cronWorkerIntervalSeconds: 2 } : {}),
    });
    // pg-boss reports its background failures (maintenance, cron, polling while the database is away)
    // only through this event; it keeps running and retries on its own.
    this.boss.on('error', (err) => options.logger?.error({ err }, 'pg-boss error (it retries on its own)'));
  }

  private start(): Promise<void> {
    this.ready ??= (async () => {
      await this.boss.start();
      for (const [name, policy] of [
        [REFRESH_QUEUE, 'stately'],
        [TICK_QUEUE, 'singleton'],
        [FILE_SWEEP_QUEUE, 'singleton'],
        [DELIVERY_QUEUE, 'standard'],
      ] as const) {
        await this.ensureQueue(name, policy);
      }
    })();
    return this.ready;
  }

  /**
   * Instances starting together on a fresh database race to create the queues: the loser sees a
   * duplicate key or a deadlock. It waits a moment and looks again; the winner's queue is then there.
   */
  private async ensureQueue(name: string, policy: 'stately' | 'singleton' | 'standard'): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      if (await this.boss.getQueue(name)) return;
      try {
        await this.boss.createQueue(name, { name, policy, retryLimit: 0, expireInSeconds: 15 * 60 });
        return;
      } catch (err) {
        if (attempt >= 5) {
          if (await this.boss.getQueue(name)) return;
          throw err;
        }
        await new Promise((resolve) => setTimeout(resolve, 100 * attempt + Math.random() * 100));
      }
    }
  }

  async enqueue(job: RefreshJob): Promise<boolean> {
    await this.start();
    // One retry, a few seconds on: a run only throws when it could not even record its outcome (the
    // database went away mid-run) or when its instance shut down before it finished; a refresh is
    // idempotent, so another instance (or this one, back) simply runs it again.
    const id = await this.boss.send(REFRESH_QUEUE, { ...job }, { singletonKey: job.dashboardId, retryLimit: 1, retryDelay: 5 });
    return id !== null;
  }

  /** A delivery job: taken by one instance; retried DELIVERY_RETRIES times with a doubling delay. */
  async enqueueDelivery(job: DeliveryJob): Promise<void> {
    await this.start();
    const retryDelay = this.options.deliveryRetryDelaySeconds ?? 30;
    await this.boss.send(DELIVERY_QUEUE, { ...job }, { retryLimit: DELIVERY_RETRIES, retryDelay, retryBackoff: true, expireInSeconds: 120 });
  }

  async isWaiting(dashboardId: string): Promise<boolean> {
    await this.start();
    // A queued (not yet active) job with the dashboard's singletonKey is the one `stately` folds into.
    const rows = await this.boss.getDb().executeSql(
      `SELECT 1 FROM pgboss.job WHERE name = $1 AND singleton_key = $2 AND state IN ('created', 'retry') LIMIT 1`,
      [REFRESH_QUEUE, dashboardId],
    );
    return rows.rows.length > 0;
  }

  async pending(dashboardId: string): Promise<RefreshPending> {
    await this.start();
    const rows = await this.boss.getDb().executeSql(
      `SELECT state FROM pgboss.job WHERE name = $1 AND singleton_key = $2 AND state IN ('created', 'retry', 'active')`,
      [REFRESH_QUEUE, dashboardId],
    );
    const states = (rows.rows as { state: string }[]).map((r) => r.state);
    if (states.includes('active')) return 'running';
    return states.length > 0 ? 'queued' : null;
  }

  /** Starts this instance's workers and makes sure the minute tick is scheduled. */
  async work(handlers: RefreshWorkerHandlers): Promise<void> {
    if (this.working) return;
    this.working = true;
    await this.start();
    const polling = { pollingIntervalSeconds: this.options.pollingIntervalSeconds ?? 2, batchSize: 1 };
    await this.boss.work<RefreshJob>(REFRESH_QUEUE, polling, async ([job]) => {
      if (job) await handlers.refresh(job.data);
    });
    await this.boss.work<DeliveryJob>(DELIVERY_QUEUE, { ...polling, includeMetadata: true }, async ([job]) => {
      if (job) await handlers.deliver(job.data, job.retryCount >= job.retryLimit);
    });
    await this.boss.work(TICK_QUEUE, polling, async () => handlers.tick());
    await this.boss.work(FILE_SWEEP_QUEUE, polling, async () => handlers.sweepFiles());
    await this.boss.schedule(TICK_QUEUE, '* * * * *', {}, { tz: 'UTC', retryLimit: 0 });
    await this.boss.schedule(FILE_SWEEP_QUEUE, '17 * * * *', {}, { tz: 'UTC', retryLimit: 0 });
  }

  /** Queue a tick now instead of waiting for the minute (tests, admin). */
  async sendTick(): Promise<boolean> {
    await this.start();
    return (await this.boss.send(TICK_QUEUE, {}, { retryLimit: 0 })) !== null;
  }

  /** Refresh jobs waiting to run across all instances; null before this instance has started pg-boss. */
  async depth(): Promise<number | null> {
    if (!this.ready) return null;
    await this.ready;
    return this.boss.getQueueSize(REFRESH_QUEUE);
  }

  /**
   * Stops the workers: no new job is fetched, a running one gets `stopTimeoutMs` to finish. One still
   * running then stays `active` in the table and pg-boss's expiry hands it to another instance.
   */
  async close(): Promise<void> {
    if (!this.ready) return;
    await this.ready.catch(() => undefined); // a failed start was already thrown to whoever awaited it; there is nothing to stop but the pool
    await this.boss.stop({ graceful: true, wait: true, timeout: this.options.stopTimeoutMs ?? 10_000, close: true });
  }
}
