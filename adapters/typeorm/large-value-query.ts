import pg from 'pg';
import { serialize } from 'pg-protocol';

/** From this size a statement's last value goes out by reference (the size request bodies are lent from: body-buffers.ts). */
export const BY_REFERENCE_FROM = 64 * 1024;

const NO_BYTES = Buffer.alloc(0);

/** pg's own Query.prepare (not in @types/pg). */
const pgPrepare = (pg.Query.prototype as unknown as { prepare(this: pg.Query, connection: Connection): void }).prepare;

/** Whether `values` ends in a Buffer big enough for LargeValueQuery. */
export function endsInLargeBuffer(values: readonly unknown[]): boolean {
  const last = values[values.length - 1];
  return Buffer.isBuffer(last) && last.length >= BY_REFERENCE_FROM;
}

/** What `pg`'s Query hands its connection; only `bind` and `stream` are used here. */
interface Connection {
  bind(config: Parameters<typeof serialize.bind>[0]): void;
  stream: { writable: boolean; write(chunk: Buffer): boolean };
}

/**
 * A prepared statement whose last value, a large Buffer (a publish's files as one blob), goes to the socket
 * as it is. `pg` copies every value into one new Bind message, so a 5 MiB page cost the server a fresh
 * 5 MiB allocation and a copy per publish, the last of its kind on that path
 * (docs/decisions/0044-body-buffers-and-blob-by-reference.md). Here `pg-protocol` writes the same Bind with an empty
 * value in its place, and the message goes out in three pieces around the Buffer: the head with both lengths made
 * whole, the Buffer, the result formats. `pg` corks the socket while it sends a statement, so the pieces leave in one
 * write, byte for byte the message `pg` would have sent.
 *
 * The caller's Buffer must stay unchanged until the query settles. It does: PostgreSQL answers a statement
 * only after reading its whole Bind, and an error before that (a failed Parse, a lost connection) makes it
 * discard the rest, as after any error, up to the Sync.
 */
export class LargeValueQuery extends pg.Query {
  constructor(config: { name: string; text: string; values: unknown[] }) {
    super(config);
  }

  // pg's Query.prepare sends Parse (when the connection has not yet parsed the statement), Bind, Describe,
  // Execute and Sync through its connection; this one sees the same connection with its own Bind.
  prepare(connection: Connection): void {
    const view: Connection = Object.create(connection);
    view.bind = (config) => bindByReference(connection, config);
    pgPrepare.call(this, view);
  }
}

function bindByReference(connection: Connection, config: Parameters<typeof serialize.bind>[0]): void {
  const values = config?.values ?? [];
  const large = values[values.length - 1] as Buffer;
  const message = serialize.bind({ ...config, values: [...values.slice(0, -1), NO_BYTES] });
  // The Bind ends in the empty value (its length, 0, and no bytes) and the result formats (two int16).
  const at = message.length - 8;
  if (message.readInt32BE(at) !== 0) throw new Error('pg-protocol wrote a Bind message of an unknown layout');
  message.writeInt32BE(message.readInt32BE(1) + large.length, 1);
  message.writeInt32BE(large.length, at);
  if (!connection.stream.writable) return; // as pg's own send: the connection's end reports the failure
  connection.stream.write(message.subarray(0, at + 4));
  connection.stream.write(large);
  connection.stream.write(message.subarray(at + 4));
}
