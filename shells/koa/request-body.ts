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
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
