import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { PromTelemetry } from '../../adapters/metrics/prom-telemetry.js';
import { createLogger } from '../../shells/logger.js';
import { observeRequests, setHead } from '../../shells/koa/request-observer.js';
import { testSettings } from '../support/settings.js';

/** A response's header names and values, in the order they were sent. */
async function get(port: number, path: string): Promise<{ raw: string[]; status: number }> {
  return new Promise((resolve, reject) => {
    http
      .get({ port, path, host: '127.0.0.1', headers: { host: 'api.dashpub.test' }, agent: false }, (res) => {
        res.resume();
        res.on('end', () => resolve({ raw: res.rawHeaders, status: res.statusCode ?? 0 }));
      })
      .on('error', reject);
  });
}

/**
 * The observer hands the headers every answer starts with to the handler instead of setting them itself,
 * so a front that writes its head as one list keeps node:http's fast path. Each way of writing them
 * sends the request id first, once, and `connection: close` once the server drains.
 */
describe('shells: the request observer\'s response head', () => {
  let server: http.Server;
  let port: number;
  let drain: () => void;

  before(async () => {
    const settings = testSettings({ baseUrl: 'http://api.dashpub.test' });
    const observed = observeRequests(
      (req, res, _host, head) => {
        if (req.url === '/list') {
          res.writeHead(200, [...head, 'Content-Type', 'text/plain', 'Content-Length', '2']);
          res.end('ok');
        } else {
          setHead(res, head);
          res.setHeader('Content-Type', 'text/plain');
          res.end('ok');
        }
      },
      settings,
      new PromTelemetry({ processMetrics: false }),
      createLogger({ logLevel: 'silent' }),
    );
    drain = observed.drain;
    server = http.createServer(observed.handler);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  for (const path of ['/list', '/one-by-one']) {
    it(`sends the request id first and once, written ${path === '/list' ? 'in writeHead\'s list' : 'header by header'}`, async () => {
      const { raw, status } = await get(port, path);
      expect(status).to.equal(200);
      expect(raw[0]).to.equal('x-request-id');
      expect(raw[1]).to.match(/^[0-9a-f-]{36}$/);
      expect(raw.filter((name, i) => i % 2 === 0 && name.toLowerCase() === 'x-request-id')).to.have.length(1);
    });
  }

  it('asks every client to close once draining, whichever way the head is written', async () => {
    drain();
    for (const path of ['/list', '/one-by-one']) {
      const { raw } = await get(port, path);
      expect(raw.slice(0, 4).map((value, i) => (i === 1 ? 'id' : value))).to.deep.equal(['x-request-id', 'id', 'connection', 'close']);
      expect(raw.filter((name, i) => i % 2 === 0 && name.toLowerCase() === 'connection')).to.have.length(1);
    }
  });
});
