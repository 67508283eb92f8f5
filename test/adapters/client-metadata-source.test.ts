import { expect } from 'chai';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpClientMetadataSource, type HttpClientMetadataOptions } from '../../adapters/http/http-client-metadata-source.js';
import { OAuthError } from '../../domain/oauth.js';
import { refusal } from '../support/refusal.js';

const ADDRESS = 'its host is not an address this service fetches metadata documents from';
const fetchFailed = (seconds: number) =>
  'no metadata document could be fetched from it (the service fetches only a JSON document of at most 5 KB, ' +
  `answered with HTTP 200 within ${seconds} seconds, without redirects)`;
const because = (url: string, why: string) => `The client ID ${url} cannot be used: ${why}.`;

/** The real adapter against a loopback HTTP server; names resolve through a table the test sets. */
describe('adapter: HttpClientMetadataSource (outbound address policy, limits)', () => {
  let server: Server;
  let port: number;
  let hits = 0;
  const routes = new Map<string, (res: ServerResponse) => void>();
  const names: Record<string, string[]> = {
    'docs.test': ['127.0.0.1'],
    'intranet.test': ['10.1.2.3'],
    'metadata.test': ['169.254.169.254'],
    'mixed.test': ['93.184.216.34', '192.168.1.4'],
    'self.test': ['203.0.114.7'],
  };
  const source = (options: Partial<HttpClientMetadataOptions> = {}) =>
    new HttpClientMetadataSource({
      allowLoopback: true,
      resolve: async (host) => {
        const found = names[host];
        if (!found) throw new Error(`getaddrinfo ENOTFOUND ${host}`);
        return found;
      },
      localAddresses: () => ['203.0.114.7', '127.0.0.1'],
      ...options,
    });
  const refused = async (promise: Promise<unknown>): Promise<string> => (await refusal(promise, OAuthError)).description;

  before(async () => {
    server = createServer((req, res) => {
      hits += 1;
      const route = routes.get(req.url ?? '');
      if (route) route(res);
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    port = (server.address() as AddressInfo).port;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('fetches a document with its caching headers through a name resolving to loopback, when allowed', async () => {
    routes.set('/ok.json', (res) => res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'max-age=60', age: '5' }).end('{"a":1}'));
    const fetched = await source().fetch(new URL(`http://docs.test:${port}/ok.json`));
    expect(fetched).to.deep.equal({ document: { a: 1 }, cacheControl: 'max-age=60', age: '5' });
  });

  it('refuses loopback without the setting, and the service\'s own ports with it, before connecting', async () => {
    const before = hits;
    for (const url of [`http://docs.test:${port}/ok.json`, `http://127.0.0.1:${port}/ok.json`, `http://[::1]:${port}/ok.json`]) {
      expect(await refused(source({ allowLoopback: false }).fetch(new URL(url)))).to.equal(because(url, ADDRESS));
    }
    // An own port gets the text of a fetch that failed, so the service's ports cannot be told from closed ones.
    for (const url of [`http://127.0.0.1:${port}/ok.json`, `http://docs.test:${port}/ok.json`, `http://[::1]:${port}/ok.json`]) {
      expect(await refused(source({ ownPorts: () => [1, port] }).fetch(new URL(url)))).to.equal(because(url, fetchFailed(5)));
    }
    expect(hits).to.equal(before);
  });

  it('refuses private, link-local, mixed and this machine\'s addresses, and names that do not resolve', async () => {
    const s = source();
    // One text for all: which internal names exist, and where they lead, is not told.
    for (const host of ['intranet.test', 'metadata.test', 'mixed.test', 'self.test', '[fd00::1]', 'nowhere.test']) {
      const url = `https://${host}/c.json`;
      expect(await refused(s.fetch(new URL(url)))).to.equal(because(url, ADDRESS));
    }
  });

  it('stops at 5 KB even without a Content-Length, and refuses non-JSON, errors and redirects', async () => {
    routes.set('/chunked.json', (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      for (let i = 0; i < 8; i += 1) res.write(' '.repeat(1024));
      res.end('{}');
    });
    routes.set('/html', (res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html></html>'));
    routes.set('/gone', (res) => res.writeHead(410).end());
    routes.set('/moved', (res) => res.writeHead(307, { location: '/ok.json' }).end());
    const s = source();
    const at = (path: string) => new URL(`http://127.0.0.1:${port}${path}`);
    for (const path of ['/chunked.json', '/html', '/gone', '/moved']) {
      expect(await refused(s.fetch(at(path)))).to.equal(because(at(path).href, fetchFailed(5)));
    }
  });

  it('gives up after its timeout', async () => {
    routes.set('/slow', (res) => void setTimeout(() => res.writeHead(200).end('{}'), 2000).unref());
    const url = `http://127.0.0.1:${port}/slow`;
    expect(await refused(source({ timeoutMs: 200 }).fetch(new URL(url)))).to.equal(because(url, fetchFailed(0.2)));
  });
});
