import type { DeliveryJob, DeliveryQueue } from '../../application/ports/delivery-ports.js';

/** Deliveries in this process as they arrive, one attempt each (memory storage has no retries). */
export class MemoryDeliveryQueue implements DeliveryQueue {
  private chain: Promise<void> = Promise.resolve();
  private handler: ((job: DeliveryJob) => Promise<void>) | null = null;

  work(handler: (job: DeliveryJob) => Promise<void>): void {
    this.handler = handler;
  }

  async enqueue(job: DeliveryJob): Promise<void> {
    this.chain = this.chain.then(() => this.handler?.(job).catch(() => undefined)); // the handler records its own failure
  }

  /** Resolves once every delivery queued so far has run. */
  async idle(): Promise<void> {
    await this.chain;
  }
}
