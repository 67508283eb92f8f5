import { isAscii } from 'node:buffer';
import type { IncomingMessage } from 'node:http';
import { POOLED_FROM, type BodyBuffers, type BodyLease } from './body-buffers.js';

/** A request body over the reader's limit; each surface answers it in its own channel (413 page, JSON-RPC). */
export class BodyTooLarge extends Error {}

/** The request body as text (UTF-8), refusing more than `limit` bytes as `readBodyBytes` does. */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return readBodyBytes(req, limit).then(bodyText);
}

/**
 * The raw request body, refusing more than `limit` bytes: at once when Content-Length says so, otherwise as
 * soon as the bytes read pass it, so an oversized body is never held in memory. `into`: a buffer lent for
 * this body (`lendBodyBuffer`), read into instead of a new one, and given back if the read fails.
 */
export function readBodyBytes(req: IncomingMessage, limit: number, into: BodyLease | null = null): Promise<Buffer> {
  if (into === null) return readInto(req, limit, allocateNew);
  return readInto(req, limit, () => into.bytes).catch((err: unknown) => {
    into.release();
    throw err;
  });
}

const allocateNew = (declared: number) => Buffer.allocUnsafe(declared);

/**
 * A buffer from `buffers` for a body of POOLED_FROM bytes or more (by its Content-Length, within `limit`);
 * null for a smaller body, or one of unknown length, which `readBodyBytes` allocates as before. The caller
 * releases it when nothing reads the bytes any more.
 */
export function lendBodyBuffer(req: IncomingMessage, limit: number, buffers: BodyBuffers): BodyLease | null {
  const declared = Number(req.headers['content-length']);
  return Number.isInteger(declared) && declared >= POOLED_FROM && declared <= limit ? buffers.lend(declared) : null;
}

function readInto(req: IncomingMessage, limit: number, allocate: (declared: number) => Buffer): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.reject(new BodyTooLarge());
  // With a declared length the chunks go straight into one buffer, so a large body (a 5 MiB publish) is
  // held once rather than as chunks plus their concatenation.
  const whole = Number.isInteger(declared) && declared > 0 ? allocate(declared) : null;
  const chunks: Buffer[] = [];
  let size = 0;
  let filled = 0;
  // Listeners rather than `for await`: a small JSON-RPC body is one chunk, and the async iterator's
  // promises and stream bookkeeping were a visible share of a tools/list call (docs/benchmarks.md, the `tools/list` row).
  return new Promise((resolve, reject) => {
    const settle = (error: Error | null) => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.off('close', onClose);
      if (error) return reject(error);
      if (!whole) return resolve(Buffer.concat(chunks));
      resolve(chunks.length === 0 ? whole.subarray(0, filled) : Buffer.concat([whole.subarray(0, filled), ...chunks]));
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        // Stop reading at once, as leaving a `for await` does: the rest of the body is never taken in.
        req.destroy();
        return settle(new BodyTooLarge());
      }
      if (whole && chunks.length === 0 && filled + chunk.length <= whole.length) filled += chunk.copy(whole, filled);
      else chunks.push(chunk);
    };
    const onEnd = () => settle(null);
    const onError = (error: Error) => settle(error);
    const onClose = () => settle(new Error('the request closed before its body was read'));
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
    req.on('close', onClose);
  });
}

/**
 * The bytes as UTF-8 text. Bytes that are all ASCII (a JSON-RPC body usually is: a client's JSON.stringify
 * escapes control characters, and HTML is mostly ASCII) read the same as latin1, which Node keeps outside
 * V8's heap for texts over about 1 MB and counts as external memory: a 5 MiB request text, dead as soon as it
 * is parsed, is then collected sooner than a string in V8's large-object space, which waits for a full
 * collection. Measured: peak RSS of 8 publishes of 5 MiB in flight about 25 MiB lower (docs/benchmarks.md,
 * the 5 MiB `publish_dashboard` row; docs/decisions/0043-large-body-decoding.md).
 */
export function bodyText(bytes: Buffer): string {
  return isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
}
