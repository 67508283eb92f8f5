/**
 * The embedded database process: PGlite on `argv[2]`, served on a random loopback port through
 * pglite-socket's protocol handler and our SessionQueue. It runs apart from the server because PGlite
 * blocks its event loop while a query runs.
 *
 * Protocol with the parent (IPC): sends `{ type: 'ready', port }` once listening, or
 * `{ type: 'failed', message }`. It stops cleanly on SIGTERM and when the parent goes away (the IPC
 * channel closes, even when the parent is killed). SIGINT is the parent's to handle: a terminal's
 * Ctrl-C reaches the whole process group, and the server must close its pool before the database.
 */
import { createServer, type AddressInfo } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { PGLiteSocketHandler } from '@electric-sql/pglite-socket';
import { SessionQueue } from './session-queue.js';

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  if (!dataDir) throw new Error('usage: child.js <pgdata directory>');
  const parentPid = process.ppid;

  const db = await PGlite.create(dataDir);
  const queue = new SessionQueue(db);
  const handlers = new Set<PGLiteSocketHandler>();

  const server = createServer((socket) => {
    // SessionQueue has the shape of pglite-socket's (unexported) queue class.
    const handler = new PGLiteSocketHandler({ queryQueue: queue as never, closeOnDetach: true });
    handlers.add(handler);
    const forget = () => handlers.delete(handler);
    handler.addEventListener('close', forget);
    handler.addEventListener('error', forget);
    // One client's failed handshake ends only its own connection (pg reports it on that side).
    handler.attach(socket).catch(() => {
      forget();
      socket.destroy();
    });
  });

  let stopping: Promise<void> | null = null;
  const stop = () =>
    (stopping ??= (async () => {
      server.close();
      // Detaching rolls back whatever a connection left open.
      for (const handler of [...handlers]) await handler.detach(true).catch(() => undefined); // stopping: a connection that fails to detach is closed with the database
      await db.close();
      process.exit(0);
    })());

  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => undefined);
  process.on('disconnect', () => void stop());
  // Belt and braces for a parent that died without closing the channel (re-parented to init).
  setInterval(() => {
    if (process.ppid !== parentPid || !process.connected) void stop();
  }, 1000).unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  process.send?.({ type: 'ready', port });
}

main().catch((error: unknown) => {
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(`embedded database failed: ${message}\n`);
  if (process.send) process.send({ type: 'failed', message }, () => process.exit(1));
  else process.exit(1);
});
