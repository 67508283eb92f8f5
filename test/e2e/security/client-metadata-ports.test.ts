import { expect } from 'chai';
import { createServer as createHttpServer, type Server as HttpServer } from 'node:http';
import net from 'node:net';
import { createMigratedTestDatabase, type TestDatabase } from '../../support/database.js';
import { request } from '../../support/http.js';
import { pkcePair } from '../../support/oauth-kit.js';
import { freePort, startFullServer } from '../../support/server.js';

const WHY =
  'no metadata document could be fetched from it (the service fetches only a JSON document of at most 5 KB, ' +
  'answered with HTTP 200 within 5 seconds, without redirects)';

const listening = async <T extends net.Server>(server: T): Promise<T & { port: number }> => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return Object.assign(server, { port: (server.address() as net.AddressInfo).port });
};

/**
 * The attack of issue 30, item 12: with ALLOW_LOOPBACK_CLIENT_METADATA, an authorization request whose
 * client_id is a URL on the admin port was fetched, and the refusal texts told a closed port from an open
 * one, a non-HTTP service from an HTTP one and a status from another: a port scanner on the service's
 * machine. The service's own ports are never fetched from, and every failed fetch reads the same.
 */
describe('security: client ID metadata fetches cannot scan ports or reach the service itself', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let server: Awaited<ReturnType<typeof startFullServer>>;
  const others: Array<net.Server> = [];
  let adminPort: number;

  before(async () => {
    database = await createMigratedTestDatabase();
    adminPort = await freePort();
    server = await startFullServer({ DATABASE_URL: database.url, REDIS_URL: '', ALLOW_LOOPBACK_CLIENT_METADATA: 'true', ADMIN_PORT: String(adminPort) });
  });
  after(async () => {
    for (const other of others) other.close();
    await server?.close();
    await database?.drop();
  });

  const authorize = async (clientId: string) => {
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: 'http://127.0.0.1:1/callback',
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 's',
      scope: 'mcp',
    });
    const res = await request({ url: `${server.url}/authorize?${query}`, host: server.hosts.api });
    expect(res.status, res.text).to.equal(400);
    expect(res.headers.location).to.equal(undefined);
    return res.text;
  };
  /** Requests the public listener answered, other than the /authorize refusals (400) themselves. */
  const publicRequests = async () => {
    const metrics = (await request({ url: `http://127.0.0.1:${adminPort}/metrics` })).text;
    return [...metrics.matchAll(/^dashpub_http_requests_total\{([^}]*)\} (\d+)$/gm)]
      .filter(([, labels]) => !labels!.includes('status="400"'))
      .reduce((sum, [, , count]) => sum + Number(count), 0);
  };

  it('answers the admin port, the public port, closed ports, other services and bad answers with one text', async () => {
    const raw = await listening(net.createServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n')));
    const silent = await listening(net.createServer((socket) => socket.destroy()));
    const web = await listening(
      createHttpServer((req, res) => {
        if (req.url === '/missing.json') res.writeHead(404).end();
        else if (req.url === '/page.json') res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>');
        else res.writeHead(302, { location: '/page.json' }).end();
      }),
    );
    const closedPort = await freePort();
    others.push(raw, silent, web as HttpServer);

    const targets = [
      `http://127.0.0.1:${adminPort}/metrics`,
      `http://localhost:${adminPort}/readyz`,
      `http://127.0.0.1:${server.port}/client.json`,
      `http://[::1]:${server.port}/client.json`,
      `http://127.0.0.1:${closedPort}/client.json`,
      `http://127.0.0.1:${raw.port}/client.json`,
      `http://127.0.0.1:${silent.port}/client.json`,
      `http://127.0.0.1:${web.port}/missing.json`,
      `http://127.0.0.1:${web.port}/page.json`,
      `http://127.0.0.1:${web.port}/moved.json`,
    ];
    const before = await publicRequests();
    for (const clientId of targets) {
      const page = await authorize(clientId);
      // The client id itself is echoed (escaped); what follows it is the same for every target.
      expect(page, clientId).to.contain(`cannot be used: ${WHY}.`);
      expect(page, clientId).to.not.match(/ECONNREFUSED|ECONNRESET|HTTP 404|HTTP 302|not valid JSON|this service itself|parse error/i);
    }
    // None of the requests to the public port reached it.
    expect(await publicRequests()).to.equal(before);
  });
});
