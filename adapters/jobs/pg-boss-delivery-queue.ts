import type { DeliveryJob, DeliveryQueue } from '../../application/ports/delivery-ports.js';
import type { PgBossRefreshQueue } from './pg-boss-refresh-queue.js';

/** Delivery jobs on the refresh queue's pg-boss (one pool, one schema, the same workers). */
export class PgBossDeliveryQueue implements DeliveryQueue {
  constructor(private readonly jobs: PgBossRefreshQueue) {}

  enqueue(job: DeliveryJob): Promise<void> {
    return this.jobs.enqueueDelivery(job);
  }
}
