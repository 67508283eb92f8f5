import { expect } from 'chai';
import { loadSettings } from '../../shells/config.js';
import { spawnDashpub } from '../support/cli.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { request, type HttpRequest, type HttpResponse } from '../support/http.js';
import { pkcePair } from '../support/oauth-kit.js';
import { csrfOf, WebClient } from '../support/oauth-server.js';
import { startFullServer, type FullServer } from '../support/server.js';

const REDIRECT = 'http://127.0.0.1:49152/callback';
const PASSWORD = 'brand name horse battery';
/** A configured name that would run as script, or break the markup, if any page forgot to escape it. */
const HOSTILE = 'Acme <script>alert(1)</script> & Co';
const HOSTILE_HTML = 'Acme &lt;script&gt;alert(1)&lt;/script&gt; &amp; Co';

type Server = FullServer & { server: Awaited<ReturnType<typeof startFullServer>>['server'] };

const apiOf = (server: Server) => (path: string, init: Omit<HttpRequest, 'url'> = {}) =>
  request({ url: `${server.url}${path}`, host: server.hosts.api, ...init });

/**
 * The pages a person meets, fetched over HTTP from the real server (web app, consent, account, dashboards
 * host), and the access token the consent then grants.
 */
async function tourPages(server: Server, handle: string): Promise<{ pages: Record<string, HttpResponse>; token: string }> {
  const api = apiOf(server);
  const registered = await api('/register', { method: 'POST', body: { client_name: 'Brand client', redirect_uris: [REDIRECT] } });
  const clientId = registered.json<{ client_id: string }>().client_id;
  const pkce = pkcePair();
  const query = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce.challenge, code_challenge_method: 'S256', state: 's' });
  const consentUrl = new URL((await api(`/authorize?${query}`)).headers.location!);

  const web = new WebClient(server.url, server.hosts.app);
  const signIn = await web.get('/sign-in');
  const signUp = await web.get('/sign-up');
  const signedUp = await web.post('/sign-up', { csrf: csrfOf(signUp), handle, email: `${handle}@example.com`, password: PASSWORD, return_to: '/account' });
  expect(signedUp.status).to.equal(303);
  const consent = await web.get(`${consentUrl.pathname}${consentUrl.search}`);
  const dashboards = request({ url: `${server.url}/`, host: server.hosts.dashboard(handle) });
  const missing = request({ url: `${server.url}/no-such-dashboard`, host: server.hosts.dashboard(handle) });
  const pages = {
    signIn,
    signUp,
    consent,
    account: await web.get('/account'),
    connect: await web.get('/connect'),
    appNotFound: await web.get('/no-such-page'),
    dashboardsPage: await web.get('/dashboards'),
    badViewerLink: await web.get('/viewer/sign-in?subdomain=nobody-here&return=/&state=x'),
    listing: await dashboards,
    notFound: await missing,
  };
  const allowed = await web.post('/consent', { csrf: csrfOf(consent), request: consentUrl.searchParams.get('request')!, decision: 'allow', target: 'personal' });
  const code = new URL(allowed.headers.location!).searchParams.get('code')!;
  const exchanged = await api('/token', {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: pkce.verifier, redirect_uri: REDIRECT, client_id: clientId }).toString(),
  });
  return { pages, token: exchanged.json<{ access_token: string }>().access_token };
}

/** What `initialize` and the OAuth metadata call the server: the spec's identity, whatever the display name. */
async function identity(server: Server, token: string): Promise<{ serverInfo: unknown; resourceName: unknown }> {
  const api = apiOf(server);
  const metadata = await api('/.well-known/oauth-protected-resource');
  const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } } };
  const mcp = await api('/mcp', { method: 'POST', headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` }, body: initialize });
  return { serverInfo: mcp.json<{ result: { serverInfo: unknown } }>().result.serverInfo, resourceName: metadata.json<{ resource_name?: unknown }>().resource_name };
}

/** SERVICE_DISPLAY_NAME on the pages the service renders, over HTTP against the real server on PostgreSQL. */
describe('e2e: the product name on pages (SERVICE_DISPLAY_NAME, PostgreSQL)', function () {
  this.timeout(60_000);
  let database: TestDatabase;

  before(async () => {
    database = await createMigratedTestDatabase();
  });
  after(async () => {
    await database?.drop();
  });

  it('calls the product dashpub by default, in every title and brand line, and never "service"', async () => {
    const server = await startFullServer({ DATABASE_URL: database.url, REDIS_URL: '' });
    try {
      const { pages } = await tourPages(server, 'brandless');
      expect(pages.signIn!.text).to.contain('<title>Sign in · dashpub</title>').and.contain('<p class="muted">to dashpub</p>');
      expect(pages.consent!.text).to.contain('<title>Authorize Brand client · dashpub</title>').and.contain('use your dashpub dashboards');
      expect(pages.account!.text).to.contain('<title>@brandless · dashpub</title>').and.contain('Add the MCP address of dashpub to an AI client');
      expect(pages.connect!.text).to.contain('Add dashpub to any assistant').and.contain('opens the consent screen of dashpub');
      expect(pages.dashboardsPage!.text).to.contain('<title>Dashboards · dashpub</title>');
      expect(pages.appNotFound!.status).to.equal(404);
      expect(pages.badViewerLink!.status).to.equal(400);
      expect(pages.badViewerLink!.text).to.contain('<title>Bad link · dashpub</title>');
      expect(pages.listing!.text).to.contain('<title>brandless · dashboards · dashpub</title>');
      expect(pages.notFound!.status).to.equal(404);
      expect(pages.notFound!.text).to.contain('<title>Dashboard not found · dashpub</title>').and.contain('<div class="brand">dashpub</div>');
      for (const [name, page] of Object.entries(pages)) {
        expect(page.text, name).to.match(/<div class="brand">(<span class="mark"><\/span>)?dashpub<\/div>/);
        expect(page.text, name).to.not.match(/· service<\/title>|>service<\/div>|to service<|[Tt]he service could/);
      }
    } finally {
      await server.close();
    }
  });

  it('shows a configured name escaped on every page, while the server identity and the OAuth metadata still say service', async () => {
    const server = await startFullServer({ DATABASE_URL: database.url, REDIS_URL: '', SERVICE_DISPLAY_NAME: `  ${HOSTILE}  ` });
    try {
      const { pages, token } = await tourPages(server, 'branded');
      expect(pages.signIn!.text).to.contain(`<title>Sign in · ${HOSTILE_HTML}</title>`).and.contain(`<p class="muted">to ${HOSTILE_HTML}</p>`);
      expect(pages.consent!.text).to.contain(`use your ${HOSTILE_HTML} dashboards`);
      expect(pages.connect!.text).to.contain(`Add ${HOSTILE_HTML} to any assistant`);
      expect(pages.listing!.text).to.contain(`<title>branded · dashboards · ${HOSTILE_HTML}</title>`);
      expect(pages.notFound!.text).to.contain(`<title>Dashboard not found · ${HOSTILE_HTML}</title>`);
      for (const [name, page] of Object.entries(pages)) {
        expect(page.text, name).to.contain(HOSTILE_HTML);
        expect(page.text, name).to.not.contain('<script>alert(1)').and.not.contain('& Co');
      }
      // The connect page's snippets still name the MCP server by SERVICE_NAME, as clients must.
      expect(pages.connect!.text).to.contain(`claude mcp add --transport http service ${server.settings.baseUrl}/mcp`);
      expect(await identity(server, token)).to.deep.equal({ serverInfo: { name: 'service', version: '0.6.0' }, resourceName: 'service' });
    } finally {
      await server.close();
    }
  });
});

describe('SERVICE_DISPLAY_NAME setting', () => {
  it('is dashpub when unset or blank, and trimmed otherwise', () => {
    expect(loadSettings({}).serviceDisplayName).to.equal('dashpub');
    expect(loadSettings({ SERVICE_DISPLAY_NAME: '   ' }).serviceDisplayName).to.equal('dashpub');
    expect(loadSettings({ SERVICE_DISPLAY_NAME: ' Acme Dashboards ' }).serviceDisplayName).to.equal('Acme Dashboards');
    expect(loadSettings({ SERVICE_DISPLAY_NAME: 'é'.repeat(60) }).serviceDisplayName).to.equal('é'.repeat(60));
    expect(loadSettings({ SERVICE_DISPLAY_NAME: 'Acme' }).serviceName).to.equal('service');
  });

  it('refuses more than 60 characters and control, separator or bidi-override characters, quoting the value', () => {
    const rule = 'SERVICE_DISPLAY_NAME must be 1 to 60 characters with no control characters';
    expect(() => loadSettings({ SERVICE_DISPLAY_NAME: 'x'.repeat(61) })).to.throw(`${rule} (got "${'x'.repeat(61)}")`);
    expect(() => loadSettings({ SERVICE_DISPLAY_NAME: 'Acme\u0007' })).to.throw(`${rule} (got "Acme\\u0007")`);
    expect(() => loadSettings({ SERVICE_DISPLAY_NAME: 'Acme\nCo' })).to.throw(`${rule} (got "Acme\\nCo")`);
    expect(() => loadSettings({ SERVICE_DISPLAY_NAME: 'Acme\u0085Co' })).to.throw(rule);
    expect(() => loadSettings({ SERVICE_DISPLAY_NAME: 'Acme\u2028Co' })).to.throw(rule);
    expect(() => loadSettings({ SERVICE_DISPLAY_NAME: '\u202eemcA' })).to.throw(rule);
  });

  it('a serve process with a bad value refuses to start and says why', async function () {
    this.timeout(30_000);
    const run = await spawnDashpub({ DATABASE_URL: '', DATA_DIR: '/nonexistent', PORT: '0', SERVICE_DISPLAY_NAME: 'Acme\tDashboards' }, ['serve']);
    expect(run.code).to.not.equal(0);
    expect(run.stderr.trim()).to.equal('error: SERVICE_DISPLAY_NAME must be 1 to 60 characters with no control characters (got "Acme\\tDashboards")');
  });
});
