import type { IncomingMessage } from 'node:http';

/** A request body over the reader's limit; each surface answers it in its own channel (413 page, JSON-RPC). */
export class BodyTooLarge extends Error {}

/**
 * The raw request body as text, refusing more than `limit` bytes: at once when Content-Length says so,
 * otherwise as soon as the bytes read pass it, so an oversized body is never held in memory.
 */
export async function readBody(req: IncomingMessage, limit: number): Promise<string> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) throw new BodyTooLarge();
  // With a declared length the chunks go straight into one buffer, so a large body (a 5 MiB publish) is
  // held once rather than as chunks plus their concatenation.
  const whole = Number.isInteger(declared) && declared > 0 ? Buffer.allocUnsafe(declared) : null;
  const chunks: Buffer[] = [];
  let size = 0;
  let filled = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLarge();
    if (whole && chunks.length === 0 && filled + chunk.length <= whole.length) filled += chunk.copy(whole, filled);
    else chunks.push(chunk);
  }
  if (!whole) return Buffer.concat(chunks).toString('utf8');
  return chunks.length === 0 ? whole.toString('utf8', 0, filled) : Buffer.concat([whole.subarray(0, filled), ...chunks]).toString('utf8');
}
