/** A buffer lent for one request's body: `bytes` is exactly the body's length; `release` gives it back once. */
export interface BodyLease {
  readonly bytes: Buffer;
  release(): void;
}

/** Bodies from this size on are read into a lent buffer; smaller ones are allocated as before. */
export const POOLED_FROM = 64 * 1024;

export interface BodyBuffersOptions {
  /** Bytes kept for reuse at most, over every size (the buffers' whole capacity counts). Default 64 MiB. */
  maxBytes?: number;
  /** Kept buffers are dropped after this long without a large body. Default 60 s. */
  idleMs?: number;
}

/**
 * Buffers for large request bodies, reused from one request to the next
 * (docs/decisions/0044-body-buffers.md). Every new multi-megabyte ArrayBuffer counts towards
 * V8's external memory, and every few tens of MiB of it start a full collection, whose concurrent marking cost the
 * server a quarter of its CPU per 5 MiB publish; a body read into a buffer that is already there allocates nothing.
 *
 * Buffers come in power-of-two sizes and a body takes one of its own size class only, so a small body
 * never holds a large buffer. A lease's bytes belong to its request until it is released, and the buffer
 * is lent again after: whoever receives those bytes (parse-message.ts decodes a publish's body in place,
 * so the bytes of a `Utf8Body` are these) must be done with them, or have copied them, by then.
 */
export class BodyBuffers {
  private readonly free = new Map<number, Buffer[]>();
  private kept = 0;
  private idleTimer: NodeJS.Timeout | null = null;
  private readonly maxBytes: number;
  private readonly idleMs: number;

  constructor(options: BodyBuffersOptions = {}) {
    this.maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
    this.idleMs = options.idleMs ?? 60_000;
  }

  /** A buffer of `size` bytes for one body; its earlier content is overwritten by the body before it is read. */
  lend(size: number): BodyLease {
    const capacity = sizeClass(size);
    const pooled = this.free.get(capacity);
    const reused = pooled?.pop();
    if (pooled?.length === 0) this.free.delete(capacity);
    if (reused) this.kept -= capacity;
    const buffer = reused ?? Buffer.allocUnsafe(capacity);
    let lent = true;
    return {
      bytes: buffer.subarray(0, size),
      release: () => {
        // Twice would put one buffer in the pool twice, and so lend it to two requests at once.
        if (!lent) return;
        lent = false;
        this.giveBack(buffer);
      },
    };
  }

  /** Bytes of the buffers waiting to be lent (for tests and a look at memory). */
  get idleBytes(): number {
    return this.kept;
  }

  private giveBack(buffer: Buffer): void {
    if (this.kept + buffer.length > this.maxBytes) return; // left to the garbage collector, as before
    const same = this.free.get(buffer.length);
    if (same) same.push(buffer);
    else this.free.set(buffer.length, [buffer]);
    this.kept += buffer.length;
    this.scheduleDrop();
  }

  /** After a quiet while nothing is kept: an instance that took one burst of large bodies gives the memory back. */
  private scheduleDrop(): void {
    if (this.idleTimer) this.idleTimer.refresh();
    else {
      this.idleTimer = setTimeout(() => {
        this.idleTimer = null;
        this.free.clear();
        this.kept = 0;
      }, this.idleMs);
      this.idleTimer.unref();
    }
  }
}

/** The power of two at or above `size`, at least POOLED_FROM. */
export function sizeClass(size: number): number {
  let capacity = POOLED_FROM;
  while (capacity < size) capacity *= 2;
  return capacity;
}
