import { expect } from 'chai';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpClientMetadataSource, type HttpClientMetadataOptions } from '../../adapters/http/http-client-metadata-source.js';
import { OAuthError } from '../../domain/oauth.js';
import { refusal } from '../support/refusal.js';

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

  it('refuses loopback without the setting, and the service\'s own port with it, before connecting', async () => {
    const before = hits;
    expect(await refused(source({ allowLoopback: false }).fetch(new URL(`http://docs.test:${port}/ok.json`)))).to.contain('loopback address (127.0.0.1)');
    expect(await refused(source({ allowLoopback: false }).fetch(new URL(`http://127.0.0.1:${port}/ok.json`)))).to.contain('loopback address');
    expect(await refused(source({ allowLoopback: false }).fetch(new URL(`http://[::1]:${port}/ok.json`)))).to.contain('loopback address');
    expect(await refused(source({ servicePort: port }).fetch(new URL(`http://127.0.0.1:${port}/ok.json`)))).to.contain('this service itself');
    expect(hits).to.equal(before);
  });

  it('refuses private, link-local, mixed and this machine\'s addresses, and names that do not resolve', async () => {
    const s = source();
    expect(await refused(s.fetch(new URL('https://intranet.test/c.json')))).to.contain('private address (10.1.2.3)');
    expect(await refused(s.fetch(new URL('https://metadata.test/c.json')))).to.contain('link-local address (169.254.169.254)');
    expect(await refused(s.fetch(new URL('https://mixed.test/c.json')))).to.contain('private address (192.168.1.4)');
    expect(await refused(s.fetch(new URL('https://self.test/c.json')))).to.contain('this machine');
    expect(await refused(s.fetch(new URL('https://[fd00::1]/c.json')))).to.contain('private address');
    expect(await refused(s.fetch(new URL('https://nowhere.test/c.json')))).to.contain('could not be resolved');
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
    expect(await refused(s.fetch(at('/chunked.json')))).to.contain('larger than 5 KB');
    expect(await refused(s.fetch(at('/html')))).to.contain('not valid JSON');
    expect(await refused(s.fetch(at('/gone')))).to.contain('answered HTTP 410');
    expect(await refused(s.fetch(at('/moved')))).to.contain('redirected (HTTP 307); redirects are not followed');
  });

  it('gives up after its timeout', async () => {
    routes.set('/slow', (res) => void setTimeout(() => res.writeHead(200).end('{}'), 2000).unref());
    expect(await refused(source({ timeoutMs: 200 }).fetch(new URL(`http://127.0.0.1:${port}/slow`)))).to.contain('did not arrive within 0.2 seconds');
  });
});
