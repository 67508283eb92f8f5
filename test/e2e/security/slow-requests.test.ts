import { expect } from 'chai';
import net from 'node:net';
import { createMigratedTestDatabase, type TestDatabase } from '../../support/database.js';
import { startFullServer } from '../../support/server.js';
import { AccountStore } from '../../../application/ports/account-store.js';
import { request } from '../../support/http.js';
import { mintAccessToken } from '../../support/tokens.js';
import { aUser } from '../../support/mothers.js';

type Server = Awaited<ReturnType<typeof startFullServer>>;

/**
 * A raw connection that sends `head`, then one more byte of `drip` every 100 ms until the server closes it
 * (the slowloris of issue 30, item 11). Resolves with what the server sent back; never ends the connection itself.
 */
function slowClient(port: number, head: string, drip: string): Promise<{ received: string; dripped: number }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let received = '';
    let dripped = 0;
    let timer: NodeJS.Timeout | undefined;
    socket.on('connect', () => {
      socket.write(head);
      timer = setInterval(() => {
        if (socket.writable) socket.write(drip[dripped++ % drip.length]!);
      }, 100);
    });
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearInterval(timer);
      resolve({ received, dripped });
    });
    socket.setTimeout(60_000, () => {
      clearInterval(timer);
      socket.destroy();
      reject(new Error(`the server kept a slow connection open (${dripped} bytes dripped): ${head.split('\r\n')[0]}`));
    });
  });
}

/** Opens a connection and resolves once the server has closed it, or with false while it stays open after `ms`. */
function closedByServer(port: number, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.on('error', () => undefined);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(false);
    }, ms);
    socket.on('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** Slow requests and too many connections against the real server (issue 30, item 11), over raw sockets. */
describe('security: slow requests and open connections', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let server: Server;

  before(async () => {
    database = await createMigratedTestDatabase();
    server = await startFullServer({
      DATABASE_URL: database.url,
      HTTP_HEADERS_TIMEOUT_SECONDS: '1',
      HTTP_BODY_TIMEOUT_SECONDS: '1',
      MCP_BODY_TIMEOUT_SECONDS: '2',
      HTTP_MAX_CONNECTIONS: '4',
    });
  });

  after(async () => {
    await server?.close();
    await database?.drop();
  });

  const routes = () => [
    { path: '/mcp', host: server.hosts.api },
    { path: '/token', host: server.hosts.api },
    { path: '/sign-in', host: server.hosts.app },
  ];

  it('cuts off a client that sends its headers one byte at a time, on /mcp, /token and /sign-in', async () => {
    for (const { path, host } of routes()) {
      const { dripped } = await slowClient(server.port, `POST ${path} HTTP/1.1\r\nHost: ${host}\r\n`, 'X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n');
      expect(dripped, path).to.be.greaterThan(0);
    }
  });

  it('cuts off a client that sends its body one byte at a time, on /mcp, /token and /sign-in', async () => {
    for (const { path, host } of routes()) {
      const head = `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer nothing\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n`;
      const { dripped } = await slowClient(server.port, head, 'a');
      expect(dripped, path).to.be.greaterThan(0);
    }
  });

  it('closes a connection that sends nothing at all', async () => {
    expect(await closedByServer(server.port, 30_000)).to.equal(true);
  });

  it('keeps a connection whose answer takes longer than the header deadline', async () => {
    const user = await aUser(server.server.app.container.get<AccountStore>(AccountStore), { handle: 'patient' });
    const token = (await mintAccessToken(server.server.app.container, { userId: user.id, lock: { kind: 'personal' } })).access_token;
    const res = await request({
      url: `${server.url}/mcp`,
      method: 'POST',
      host: server.hosts.api,
      headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'validate_cube_sql', arguments: { sql: 'select pg_sleep(2.5) is null as slept' } } },
      timeoutMs: 60_000,
    });
    expect(res.status).to.equal(200);
    expect(res.json().result.isError, res.text.slice(0, 300)).to.equal(undefined);
  });

  it('closes connections past HTTP_MAX_CONNECTIONS, and accepts again once some are gone', async () => {
    const held: net.Socket[] = [];
    for (let i = 0; i < 4; i++) {
      const socket = net.connect(server.port, '127.0.0.1');
      socket.on('error', () => undefined);
      // A request answered on it shows the server accepted it and counts it as open.
      await new Promise<void>((resolve) => {
        socket.once('data', () => resolve());
        socket.write(`GET /healthz HTTP/1.1\r\nHost: ${server.hosts.api}\r\n\r\n`);
      });
      held.push(socket);
    }
    expect(await closedByServer(server.port, 10_000)).to.equal(true);
    for (const socket of held) socket.destroy();
    // Once they are gone (the server sees the closes a moment later), a new connection is kept open.
    let kept = false;
    for (let attempt = 0; attempt < 50 && !kept; attempt++) kept = !(await closedByServer(server.port, 200));
    expect(kept).to.equal(true);
  });
});
