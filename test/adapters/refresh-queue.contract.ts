import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import type { RefreshJob, RefreshQueue } from '../../application/ports/refresh-queue.js';

export interface RefreshQueueHarness {
  queue: RefreshQueue;
  /** Starts running the queue's jobs with `handler`, as the service's refresh worker does. */
  work(handler: (job: RefreshJob) => Promise<void>): Promise<void>;
  close(): Promise<void>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(25);
  }
}

/** A job handler whose runs can be held open, so a test can look at the queue while one runs. */
class Worker {
  readonly runs: RefreshJob[] = [];
  private release: () => void = () => undefined;
  private gate: Promise<void> = Promise.resolve();

  hold(): void {
    this.gate = new Promise((resolve) => (this.release = resolve));
  }
  open(): void {
    this.release();
  }
  readonly handle = async (job: RefreshJob): Promise<void> => {
    this.runs.push(job);
    await this.gate;
  };
}

/** What every RefreshQueue adapter must do: the same suite runs against memory and pg-boss. */
export function describeRefreshQueueContract(name: string, make: () => Promise<RefreshQueueHarness>): void {
  describe(`RefreshQueue contract: ${name}`, () => {
    let harness: RefreshQueueHarness;
    let worker: Worker;
    beforeEach(async () => {
      harness = await make();
      worker = new Worker();
      await harness.work(worker.handle);
    });
    afterEach(async () => {
      worker.open();
      await harness.close();
    });

    it('runs an accepted job, after which nothing waits for that dashboard', async () => {
      const dashboardId = randomUUID();
      expect(await harness.queue.isWaiting(dashboardId)).to.equal(false);
      expect(await harness.queue.pending(dashboardId)).to.equal(null);
      expect(await harness.queue.enqueue({ dashboardId, trigger: 'manual' })).to.equal(true);
      await until(() => worker.runs.length === 1, 'the job runs');
      expect(worker.runs).to.deep.equal([{ dashboardId, trigger: 'manual' }]);
      await until(async () => !(await harness.queue.isWaiting(dashboardId)), 'nothing waits');
      await until(async () => (await harness.queue.pending(dashboardId)) === null, 'nothing pending once it ran');
    });

    it('holds one job waiting per dashboard while one runs, and folds further ones into it', async () => {
      const [a, b] = [randomUUID(), randomUUID()];
      worker.hold();
      expect(await harness.queue.enqueue({ dashboardId: a, trigger: 'publish' })).to.equal(true);
      await until(() => worker.runs.length === 1, 'the first job starts');
      expect(await harness.queue.isWaiting(a), 'the running job is not waiting').to.equal(false);
      expect(await harness.queue.pending(a)).to.equal('running');
      expect(await harness.queue.pending(b)).to.equal(null);

      expect(await harness.queue.enqueue({ dashboardId: a, trigger: 'schedule' })).to.equal(true);
      expect(await harness.queue.isWaiting(a)).to.equal(true);
      expect(await harness.queue.pending(a), 'one runs while another waits').to.equal('running');
      expect(await harness.queue.enqueue({ dashboardId: a, trigger: 'manual' }), 'folded into the waiting one').to.equal(false);
      expect(await harness.queue.isWaiting(b)).to.equal(false);
      expect(await harness.queue.enqueue({ dashboardId: b, trigger: 'manual' }), 'another dashboard queues on its own').to.equal(true);

      worker.open();
      await until(() => worker.runs.length === 3, 'the waiting jobs run');
      await sleep(200);
      expect(worker.runs).to.have.length(3);
      expect(worker.runs[0]).to.deep.equal({ dashboardId: a, trigger: 'publish' });
      expect(worker.runs.slice(1)).to.deep.include.members([
        { dashboardId: a, trigger: 'schedule' },
        { dashboardId: b, trigger: 'manual' },
      ]);
      expect(await harness.queue.isWaiting(a)).to.equal(false);
      expect(await harness.queue.isWaiting(b)).to.equal(false);
      await until(async () => (await harness.queue.pending(a)) === null && (await harness.queue.pending(b)) === null, 'nothing pending once all ran');
      expect(await harness.queue.enqueue({ dashboardId: a, trigger: 'manual' }), 'accepted again once nothing waits').to.equal(true);
    });
  });
}
