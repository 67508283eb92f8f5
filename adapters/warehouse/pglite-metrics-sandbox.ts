import { Worker } from 'node:worker_threads';
import { DomainError } from '../../domain/errors.js';
import type { Row } from '../../domain/dashboard-spec.js';
import type { SqlValidator } from '../../application/ports/sql-validator.js';
import {
  DEFAULT_RUN_LIMITS,
  type MetricsSandbox,
  type MetricsTables,
  type QueryResult,
  type RunLimits,
} from '../../application/ports/warehouse.js';
import type { SandboxReply, SandboxRequest } from './self-metrics-worker.js';

/** The first request also builds the template database (initdb, a few seconds). */
const FIRST_RUN_GRACE_MS = 30_000;

/**
 * The `self` sandbox: SQL over one owner's metrics in a throwaway PGlite database in a worker thread.
 * Requests run one at a time; a request that outlives its timeout terminates the worker (the only way
 * to stop a WASM query) and the next request starts a new one.
 */
export class PgliteMetricsSandbox implements MetricsSandbox {
  private worker: Worker | null = null;
  private warmedUp = false;
  private nextId = 1;
  private queue: Promise<unknown> = Promise.resolve();
  private pending = new Map<number, (reply: SandboxReply) => void>();

  constructor(private readonly validator: SqlValidator) {}

  async run(tables: MetricsTables, sql: string, limits: Partial<RunLimits> = {}): Promise<QueryResult> {
    const { rowCap, timeoutMs } = { ...DEFAULT_RUN_LIMITS, ...limits };
    const { statement } = await this.validator.validate(sql);
    const reply = await this.request({ op: 'run', tables, statement, rowCap }, timeoutMs);
    return { columns: reply.columns, rows: reply.rows as Row[], truncated: reply.truncated };
  }

  async explain(tables: MetricsTables, sql: string): Promise<void> {
    const { statement } = await this.validator.validate(sql);
    await this.request({ op: 'explain', tables, statement, rowCap: 0 }, DEFAULT_RUN_LIMITS.timeoutMs);
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private request(request: SandboxRequest, timeoutMs: number) {
    const next = this.queue.then(() => this.send(request, timeoutMs));
    this.queue = next.catch(() => {}); // the caller gets the error through `next`; the queue only orders requests
    return next;
  }

  private async send(request: SandboxRequest, timeoutMs: number): Promise<Extract<SandboxReply, { ok: true }>> {
    const worker = this.ensureWorker();
    const id = this.nextId++;
    const budget = timeoutMs + (this.warmedUp ? 2_000 : FIRST_RUN_GRACE_MS);
    const reply = await new Promise<SandboxReply | 'timeout'>((resolve) => {
      const timer = setTimeout(() => resolve('timeout'), budget);
      this.pending.set(id, (r) => {
        clearTimeout(timer);
        resolve(r);
      });
      worker.postMessage({ id, request });
    });
    this.pending.delete(id);
    if (reply === 'timeout') {
      this.worker = null;
      await worker.terminate();
      throw new DomainError('invalid_argument', `query cancelled: it ran longer than ${Math.round(timeoutMs / 1000)} s`);
    }
    this.warmedUp = true;
    if (!reply.ok) throw new DomainError('invalid_argument', `query failed: ${reply.message}`);
    return reply;
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL('./self-metrics-worker.js', import.meta.url));
    worker.unref();
    worker.on('message', (message: { id: number; reply: SandboxReply }) => this.pending.get(message.id)?.(message.reply));
    worker.on('error', () => {
      if (this.worker === worker) this.worker = null;
      for (const resolve of this.pending.values()) resolve({ ok: false, message: 'the metrics sandbox stopped' });
    });
    this.worker = worker;
    this.warmedUp = false;
    return worker;
  }
}
