import { expect } from 'chai';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import type { Browser, Page } from 'playwright-core';
import { launchChromium, openPage, signUpInBrowser } from '../support/browser.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { request } from '../support/http.js';
import { pkcePair } from '../support/oauth-kit.js';
import { startOAuthServer, type OAuthServer } from '../support/oauth-server.js';
import { startFullServer } from '../support/server.js';


/** The one text of every fetch that brought no document, whatever kept it from arriving. */
const FETCH_FAILED =
  /no metadata document could be fetched from it \(the service fetches only a JSON document of at most 5 KB, answered with HTTP 200 within 5 seconds, without redirects\)/;
const ADDRESS_REFUSED = 'its host is not an address this service fetches metadata documents from';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * The client's side, on loopback: its metadata documents (good and bad ones), counting every fetch,
 * and its redirect URI, recording what arrives there.
 */
async function clientSite() {
  const fetches = new Map<string, number>();
  const callbacks: URLSearchParams[] = [];
  const routes = new Map<string, Handler>();
  const server: Server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname === '/callback') {
      callbacks.push(url.searchParams);
      res.writeHead(200, { 'content-type': 'text/plain' }).end('You can close this window.');
      return;
    }
    fetches.set(url.pathname, (fetches.get(url.pathname) ?? 0) + 1);
    const route = routes.get(url.pathname);
    if (route) route(req, res);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const redirectUri = `${origin}/callback`;
  const document = (path: string, overrides: Record<string, unknown> = {}) => ({
    client_id: `${origin}${path}`,
    client_name: 'Metadata Client',
    redirect_uris: [redirectUri],
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    token_endpoint_auth_method: 'none',
    ...overrides,
  });
  const serve = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    routes.set(path, (_req, res) => res.writeHead(200, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body)));
  return {
    origin,
    redirectUri,
    fetches,
    callbacks,
    routes,
    document,
    serve,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

const authorizeQuery = (clientId: string, redirectUri: string, challenge: string, state = 'cimd-state') =>
  new URLSearchParams({
    response_type: 'code',
    client_id: clientId,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
    scope: 'mcp',
  });

describe('e2e: sign-in with a Client ID Metadata Document (full server, PostgreSQL, Chromium)', function () {
  this.timeout(90_000);
  let database: TestDatabase;
  let server: Awaited<ReturnType<typeof startFullServer>>;
  let site: Awaited<ReturnType<typeof clientSite>>;
  let browser: Browser;
  let page: Page;

  before(async () => {
    site = await clientSite();
    database = await createMigratedTestDatabase();
    server = await startFullServer({ DATABASE_URL: database.url, REDIS_URL: '', ALLOW_LOOPBACK_CLIENT_METADATA: 'true' });
    browser = await launchChromium();
    // The consent screen works without JavaScript, so the browser runs none.
    ({ page } = await openPage(browser, { javaScriptEnabled: false, viewport: { width: 900, height: 1000 } }));
  });
  after(async () => {
    await browser?.close();
    await server?.close();
    await database?.drop();
    await site?.close();
  });

  const authorize = (clientId: string, challenge = pkcePair().challenge, redirectUri = site.redirectUri) =>
    request({ url: `${server.url}/authorize?${authorizeQuery(clientId, redirectUri, challenge)}`, host: server.hosts.api });

  it('advertises client_id_metadata_document_supported beside registration, "none" and S256', async () => {
    const metadata = (await request({ url: `${server.url}/.well-known/oauth-authorization-server`, host: server.hosts.api })).json();
    expect(metadata).to.deep.include({
      client_id_metadata_document_supported: true,
      registration_endpoint: `${server.settings.baseUrl}/register`,
      token_endpoint_auth_methods_supported: ['none'],
      code_challenge_methods_supported: ['S256'],
    });
  });

  it('signs in through the consent screen in Chromium, calls a tool with the token, refreshes, and lists the client', async () => {
    const path = '/clients/good.json';
    const clientId = `${site.origin}${path}`;
    site.serve(path, site.document(path), { 'cache-control': 'public, max-age=300' });

    const app = server.settings.appUrl;
    await signUpInBrowser(page, app, { handle: 'meta', email: 'meta@example.com', password: 'a long enough password' });

    const pkce = pkcePair();
    await page.goto(`${server.settings.baseUrl}/authorize?${authorizeQuery(clientId, site.redirectUri, pkce.challenge)}`);
    await page.waitForURL((url) => url.href.startsWith(`${app}/consent?request=`));
    expect(await page.locator('h1').textContent()).to.equal('Authorize Metadata Client');
    expect(await page.locator('.client-host strong').textContent()).to.equal(new URL(site.origin).host);
    expect(await page.locator('code').first().textContent()).to.equal(site.redirectUri);
    expect(await page.textContent('body')).to.contain('An address on this computer').and.contain(clientId);
    if (process.env.CONSENT_SCREENSHOT) await page.screenshot({ path: process.env.CONSENT_SCREENSHOT, fullPage: true });
    await page.getByRole('button', { name: 'Allow access' }).click();
    await page.waitForURL((url) => url.href.startsWith(site.redirectUri));
    const params = site.callbacks.at(-1)!;
    expect(params.get('state')).to.equal('cimd-state');
    expect(params.get('error')).to.equal(null);

    const token = (fields: Record<string, string>) =>
      request({
        url: `${server.url}/token`,
        host: server.hosts.api,
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ client_id: clientId, ...fields }).toString(),
      });
    const wrongRedirect = await token({ grant_type: 'authorization_code', code: params.get('code')!, code_verifier: pkce.verifier, redirect_uri: `${site.origin}/other` });
    expect([wrongRedirect.status, wrongRedirect.json().error]).to.deep.equal([400, 'invalid_grant']);
    // The refusal above did not spend the code: it is bound to this redirect URI and verifier.
    const issued = await token({ grant_type: 'authorization_code', code: params.get('code')!, code_verifier: pkce.verifier, redirect_uri: site.redirectUri });
    expect(issued.status, issued.text).to.equal(200);
    const { access_token: accessToken, refresh_token: refreshToken } = issued.json();

    const client = new Client({ name: 'cimd-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.settings.baseUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${accessToken}` } } }),
    );
    const whoami = (await client.callTool({ name: 'whoami', arguments: {} })) as { content: Array<{ text: string }> };
    expect(whoami.content[0]!.text).to.contain('meta');
    await client.close();

    const refreshed = await token({ grant_type: 'refresh_token', refresh_token: refreshToken });
    expect(refreshed.status, refreshed.text).to.equal(200);
    const otherClient = await request({
      url: `${server.url}/token`,
      host: server.hosts.api,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ client_id: `${site.origin}/clients/other.json`, grant_type: 'refresh_token', refresh_token: refreshed.json().refresh_token }).toString(),
    });
    expect(otherClient.status).to.be.oneOf([400, 401]);

    // The grant names the client by its URL; the account page shows its name and host.
    const db = new pg.Client({ connectionString: database.url });
    await db.connect();
    try {
      const grants = await db.query(`SELECT client_id FROM oauth_grants`);
      expect(grants.rows.map((r) => r.client_id)).to.deep.equal([clientId]);
    } finally {
      await db.end();
    }
    await page.goto(`${app}/account`);
    const row = page.locator('tr', { hasText: 'Metadata Client' });
    expect(await row.textContent()).to.contain(new URL(site.origin).host);
    expect(site.fetches.get(path)).to.equal(1);
  });

  it('reuses a cached document within its max-age, and fetches an uncacheable one every time', async () => {
    const cached = '/clients/good.json';
    const before = site.fetches.get(cached)!;
    expect(before).to.equal(1);
    const again = await authorize(`${site.origin}${cached}`);
    expect(again.status).to.equal(302);
    expect(site.fetches.get(cached)).to.equal(before);

    const fresh = '/clients/no-store.json';
    site.serve(fresh, site.document(fresh), { 'cache-control': 'no-store' });
    expect((await authorize(`${site.origin}${fresh}`)).status).to.equal(302);
    expect((await authorize(`${site.origin}${fresh}`)).status).to.equal(302);
    expect(site.fetches.get(fresh)).to.equal(2);
  });

  const expectRefused = async (clientId: string, pattern: RegExp, redirectUri = site.redirectUri) => {
    const callbacks = site.callbacks.length;
    const res = await authorize(clientId, undefined, redirectUri);
    expect(res.status, res.text).to.equal(400);
    expect(res.headers.location).to.equal(undefined);
    expect(res.headers['content-type']).to.match(/^text\/html/);
    expect(res.text).to.contain('This authorization request cannot be used').and.match(pattern);
    expect(site.callbacks.length).to.equal(callbacks);
    return res;
  };

  it('refuses, with an error page and no redirect, documents that are too large, mismatched, redirecting or slow', async () => {
    const big = '/clients/large.json';
    site.serve(big, site.document(big, { client_uri: `https://example.com/${'x'.repeat(6000)}` }));
    await expectRefused(`${site.origin}${big}`, FETCH_FAILED);

    const otherId = '/clients/other-id.json';
    site.serve(otherId, site.document(otherId, { client_id: `${site.origin}/clients/someone-else.json` }));
    await expectRefused(`${site.origin}${otherId}`, /client_id in its metadata document differs/);

    const unlisted = '/clients/unlisted.json';
    site.serve(unlisted, site.document(unlisted));
    await expectRefused(`${site.origin}${unlisted}`, /redirect_uri is not registered/, `${site.origin}/elsewhere`);

    const secret = '/clients/secret.json';
    site.serve(secret, site.document(secret, { token_endpoint_auth_method: 'client_secret_basic' }));
    await expectRefused(`${site.origin}${secret}`, /token_endpoint_auth_method to &quot;none&quot;/);

    const nameless = '/clients/nameless.json';
    const { client_name: _name, ...withoutName } = site.document(nameless);
    site.serve(nameless, withoutName);
    await expectRefused(`${site.origin}${nameless}`, /no client_name/);

    const moved = '/clients/moved.json';
    site.routes.set(moved, (_req, res) => res.writeHead(302, { location: `${site.origin}/clients/good.json` }).end());
    await expectRefused(`${site.origin}${moved}`, FETCH_FAILED);

    const slow = '/clients/slow.json';
    site.routes.set(slow, (_req, res) => {
      const timer = setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(site.document(slow))), 8000);
      res.on('close', () => clearTimeout(timer));
    });
    await expectRefused(`${site.origin}${slow}`, FETCH_FAILED);

    // None of them was stored: fixing the document is enough, no cache to wait out.
    site.serve(otherId, site.document(otherId), { 'cache-control': 'max-age=60' });
    expect((await authorize(`${site.origin}${otherId}`)).status).to.equal(302);
  });

  it('refuses client ids of the wrong shape, and the service itself, without fetching anything', async () => {
    const count = () => [...site.fetches.values()].reduce((a, b) => a + b, 0);
    const before = count();
    await expectRefused(`${site.origin}/`, /it has no path/);
    await expectRefused(`${site.origin}/clients/../clients/good.json`, /&quot;\.&quot; or &quot;\.\.&quot; segments/);
    await expectRefused(`${site.origin}/clients/good.json#frag`, /fragment/);
    await expectRefused(`http://user:pw@127.0.0.1:${new URL(site.origin).port}/clients/good.json`, /credentials/);
    await expectRefused('http://example.com/client.json', /must use https \(http only on a loopback address\)/);
    await expectRefused(`${server.settings.baseUrl}/client.json`, /points at this service itself/);
    await expectRefused(`http://127.0.0.1:${server.port}/client.json`, FETCH_FAILED);
    expect(count()).to.equal(before);
  });
});

describe('e2e: Client ID Metadata Documents without the local-testing setting', function () {
  this.timeout(30_000);
  let server: OAuthServer;
  let site: Awaited<ReturnType<typeof clientSite>>;

  before(async () => {
    site = await clientSite();
    server = await startOAuthServer({ ALLOW_LOOPBACK_CLIENT_METADATA: 'false' });
  });
  after(async () => {
    await server?.close();
    await site?.close();
  });

  const refused = async (clientId: string) => {
    const query = authorizeQuery(clientId, site.redirectUri, pkcePair().challenge);
    const res = await request({ url: `${server.url}/authorize?${query}`, host: server.hosts.api });
    expect(res.status).to.equal(400);
    expect(res.headers.location).to.equal(undefined);
    return res.text;
  };

  it('refuses a document on a loopback address, and an http client id, and fetches nothing', async () => {
    const path = '/clients/good.json';
    site.serve(path, site.document(path));
    // https on a loopback address passes the shape check and is refused by the address policy.
    const port = new URL(site.origin).port;
    expect(await refused(`https://127.0.0.1:${port}${path}`)).to.contain(ADDRESS_REFUSED);
    expect(await refused(`https://localhost:${port}${path}`)).to.contain(ADDRESS_REFUSED);
    expect(await refused(`${site.origin}${path}`)).to.contain('it must use https.');
    expect(site.fetches.size).to.equal(0);
  });
});
