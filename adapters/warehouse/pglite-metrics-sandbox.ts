import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import { DomainError } from '../../domain/errors.js';
import type { BindValue } from '../../domain/spec-params.js';
import type { Row } from '../../domain/dashboard-spec.js';
import type { SqlValidator } from '../../application/ports/sql-validator.js';
import {
  DEFAULT_RUN_LIMITS,
  type MetricsSandbox,
  type MetricsTables,
  type QueryResult,
  type RunLimits,
} from '../../application/ports/warehouse.js';
import { DEFAULT_BYTE_CAPS, type ByteCaps } from './cells.js';
import { OwnerFairQueue } from './owner-fair-queue.js';
import type { SandboxReply, SandboxRequest, WorkerData } from './self-metrics-worker.js';

/** Loading an owner's rows: a new worker restores its database first (the very first one builds the template, initdb, a few seconds). */
const LOAD_BUDGET_MS = 30_000;
/** Time beyond the query's budget for the answer to come back. */
const ANSWER_GRACE_MS = 1_000;

export interface SandboxOptions {
  /** SELF_SANDBOXES: warm sandboxes (worker threads, one owner each) kept, and so queries run at once. */
  sandboxes: number;
  /** SELF_QUERY_TIMEOUT_SECONDS in ms: the most any `self` query may run, whatever the caller asks. */
  timeoutMs: number;
  caps: ByteCaps;
}
export const DEFAULT_SANDBOX_OPTIONS: SandboxOptions = { sandboxes: 3, timeoutMs: 5_000, caps: DEFAULT_BYTE_CAPS };

interface Slot {
  worker: Worker;
  /** The owner and rows version the worker holds (null: none, or unknown after a failure). */
  owner: string | null;
  version: string | null;
  busy: boolean;
  lastUsed: number;
  pending: Map<number, Pending>;
}

interface Pending {
  /** The rows are loaded and the statement starts: its own budget starts now. */
  started: () => void;
  done: (reply: SandboxReply) => void;
}

interface Job {
  request: SandboxRequest;
  tables: MetricsTables;
  timeoutMs: number;
  settle: (outcome: { reply: SandboxReply } | { error: unknown }) => void;
}

/**
 * The `self` sandbox: SQL over one owner's metrics in PGlite databases in worker threads. Each worker
 * keeps one owner's rows warm; queries are taken fairly by owner (one in flight per owner), so several
 * owners' queries run at once on separate workers. A query that outlives its budget terminates its
 * worker (the only way to stop a WASM query); the least recently used idle worker is reassigned when
 * all are taken.
 */
export class PgliteMetricsSandbox implements MetricsSandbox {
  private readonly options: SandboxOptions;
  private readonly slots: Slot[] = [];
  private readonly queue = new OwnerFairQueue<Job>();
  private template: Uint8Array | undefined;
  private wasm: WebAssembly.Module | undefined;
  private nextId = 1;
  private useCounter = 0;
  private closed = false;
  /** Digests of the rows objects seen, so a tool call's EXPLAIN and run (one rows object) hash them once. */
  private readonly digests = new WeakMap<MetricsTables, string>();

  constructor(
    private readonly validator: SqlValidator,
    options: Partial<SandboxOptions> = {},
  ) {
    this.options = { ...DEFAULT_SANDBOX_OPTIONS, ...options };
  }

  async run(owner: string, tables: MetricsTables, sql: string, limits: Partial<RunLimits> = {}, values: readonly BindValue[] = []): Promise<QueryResult> {
    const { rowCap, timeoutMs } = { ...DEFAULT_RUN_LIMITS, ...limits };
    const { statement } = await this.validator.validate(sql);
    const reply = await this.submit(owner, tables, { op: 'run', statement, rowCap, values: [...values] }, timeoutMs);
    return { columns: reply.columns, rows: reply.rows as Row[], truncated: reply.truncated };
  }

  async explain(owner: string, tables: MetricsTables, sql: string, values: readonly BindValue[] = []): Promise<void> {
    const { statement } = await this.validator.validate(sql);
    await this.submit(owner, tables, { op: 'explain', statement, rowCap: 0, values: [...values] }, DEFAULT_RUN_LIMITS.timeoutMs);
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.slots.splice(0).map((slot) => slot.worker.terminate()));
  }

  private async submit(owner: string, tables: MetricsTables, op: Pick<SandboxRequest, 'op' | 'statement' | 'rowCap' | 'values'>, timeoutMs: number) {
    let version = this.digests.get(tables);
    if (!version) {
      version = createHash('sha256').update(JSON.stringify(tables)).digest('base64url');
      this.digests.set(tables, version);
    }
    const budget = Math.min(timeoutMs, this.options.timeoutMs);
    const outcome = await new Promise<{ reply: SandboxReply } | { error: unknown }>((settle) => {
      this.queue.push(owner, { request: { ...op, owner, version, caps: this.options.caps }, tables, timeoutMs: budget, settle });
      this.pump();
    });
    if ('error' in outcome) throw outcome.error;
    const { reply } = outcome;
    if (!reply.ok) throw new DomainError('invalid_argument', reply.own ? reply.message : `query failed: ${reply.message}`);
    return reply;
  }

  /** Starts every waiting job that has a worker free for it. */
  private pump(): void {
    while (!this.closed && (this.slots.length < this.options.sandboxes || this.slots.some((s) => !s.busy))) {
      const next = this.queue.take();
      if (!next) return;
      const slot = this.slotFor(next.owner);
      slot.busy = true;
      void this.send(slot, next.item).then(
        (reply) => next.item.settle({ reply }),
        (error: unknown) => next.item.settle({ error }),
      ).finally(() => {
        slot.busy = false;
        this.queue.done(next.owner);
        this.pump();
      });
    }
  }

  /** The owner's warm worker if idle, else a new one while under the cap, else the least recently used idle one. */
  private slotFor(owner: string): Slot {
    const idle = this.slots.filter((s) => !s.busy);
    const warm = idle.find((s) => s.owner === owner);
    if (warm) return warm;
    if (this.slots.length < this.options.sandboxes) return this.spawn();
    return idle.reduce((a, b) => (a.lastUsed <= b.lastUsed ? a : b));
  }

  private async send(slot: Slot, job: Job): Promise<SandboxReply> {
    const { request } = job;
    const stale = slot.owner !== request.owner || slot.version !== request.version;
    const id = this.nextId++;
    slot.lastUsed = ++this.useCounter;
    const reply = await new Promise<SandboxReply | 'timeout'>((resolve) => {
      let timer = setTimeout(() => resolve('timeout'), LOAD_BUDGET_MS);
      slot.pending.set(id, {
        started: () => {
          clearTimeout(timer);
          timer = setTimeout(() => resolve('timeout'), job.timeoutMs + ANSWER_GRACE_MS);
        },
        done: (r) => {
          clearTimeout(timer);
          resolve(r);
        },
      });
      slot.worker.postMessage({ id, request: stale ? { ...request, tables: job.tables } : request });
    });
    slot.pending.delete(id);
    if (reply === 'timeout') {
      await this.retire(slot);
      throw new DomainError('invalid_argument', `query cancelled: it ran longer than ${Math.round(job.timeoutMs / 1000)} s`);
    }
    slot.owner = reply.loaded?.owner ?? null;
    slot.version = reply.loaded?.version ?? null;
    if (reply.recycle) await this.retire(slot); // its database's memory only shrinks when the worker ends
    return reply;
  }

  private spawn(): Slot {
    const workerData: WorkerData = { template: this.template, wasm: this.wasm };
    const worker = new Worker(new URL('./self-metrics-worker.js', import.meta.url), { workerData });
    worker.unref();
    const slot: Slot = { worker, owner: null, version: null, busy: false, lastUsed: 0, pending: new Map() };
    worker.on('message', (message: { id?: number; reply?: SandboxReply; started?: true; template?: Uint8Array; wasm?: WebAssembly.Module }) => {
      if (message.wasm) this.wasm ??= message.wasm;
      else if (message.template) this.template ??= message.template;
      else if (message.id !== undefined && message.started) slot.pending.get(message.id)?.started();
      else if (message.id !== undefined && message.reply) slot.pending.get(message.id)?.done(message.reply);
    });
    worker.on('error', () => {
      this.forget(slot);
      for (const pending of slot.pending.values()) pending.done({ ok: false, message: 'the metrics sandbox stopped', loaded: null });
    });
    this.slots.push(slot);
    return slot;
  }

  private async retire(slot: Slot): Promise<void> {
    this.forget(slot);
    await slot.worker.terminate();
  }

  private forget(slot: Slot): void {
    const at = this.slots.indexOf(slot);
    if (at >= 0) this.slots.splice(at, 1);
  }
}
