import type { RefreshJob, RefreshPending, RefreshQueue } from '../../application/ports/refresh-queue.js';

/**
 * A single-process refresh queue (memory storage): jobs run one at a time in arrival order, and a
 * dashboard with a job already waiting gets no second one, as with the pg-boss queue.
 */
export class MemoryRefreshQueue implements RefreshQueue {
  private readonly waiting = new Set<string>();
  private readonly running = new Set<string>();
  private chain: Promise<void> = Promise.resolve();
  private handler: ((job: RefreshJob) => Promise<void>) | null = null;

  work(handler: (job: RefreshJob) => Promise<void>): void {
    this.handler = handler;
  }

  async enqueue(job: RefreshJob): Promise<boolean> {
    if (this.waiting.has(job.dashboardId)) return false;
    this.waiting.add(job.dashboardId);
    this.chain = this.chain.then(async () => {
      this.waiting.delete(job.dashboardId);
      this.running.add(job.dashboardId);
      await this.handler?.(job).catch(() => undefined); // the handler logs its own failure; one failed job must not stop the chain
      this.running.delete(job.dashboardId);
    });
    return true;
  }

  async isWaiting(dashboardId: string): Promise<boolean> {
    return this.waiting.has(dashboardId);
  }

  async pending(dashboardId: string): Promise<RefreshPending> {
    if (this.running.has(dashboardId)) return 'running';
    return this.waiting.has(dashboardId) ? 'queued' : null;
  }

  /** Resolves once every job queued so far has run. */
  async idle(): Promise<void> {
    await this.chain;
  }
}
