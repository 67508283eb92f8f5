import { expect } from 'chai';
import {
  checkClientIdUrl,
  clientIdHost,
  clientMetadataLifetimeSeconds,
  isClientIdUrl,
  isServiceUrl,
  parseClientMetadataDocument,
} from '../../domain/client-metadata.js';
import { OAuthError } from '../../domain/oauth.js';
import { refusal } from '../support/refusal.js';

/** The description of a refused client id or document, which is always `invalid_client`. */
const refused = (fn: () => unknown): string => {
  const error = refusal(fn, OAuthError);
  expect(error.error).to.equal('invalid_client');
  return error.description;
};

const ID = 'https://client.example/oauth/metadata.json';
const doc = (overrides: Record<string, unknown> = {}) => ({
  client_id: ID,
  client_name: 'Example Client',
  redirect_uris: ['http://127.0.0.1:3000/callback'],
  token_endpoint_auth_method: 'none',
  ...overrides,
});

describe('domain: client ID metadata documents', () => {
  it('tells URL client ids from registered ones', () => {
    expect(isClientIdUrl(ID)).to.equal(true);
    expect(isClientIdUrl('http://127.0.0.1:1/x')).to.equal(true);
    expect(isClientIdUrl('5b8f0c3e-6a8e-4f43-9a55-0e6f2e3f6d11')).to.equal(false);
    expect(clientIdHost(ID)).to.equal('client.example');
    expect(clientIdHost('5b8f0c3e-6a8e-4f43-9a55-0e6f2e3f6d11')).to.equal(null);
  });

  it('accepts https URLs with a path, and http on loopback only with the local-testing setting', () => {
    expect(checkClientIdUrl(ID, { allowLoopbackHttp: false }).hostname).to.equal('client.example');
    expect(checkClientIdUrl('https://client.example:8443/a?b=c', { allowLoopbackHttp: false }).port).to.equal('8443');
    expect(checkClientIdUrl('http://127.0.0.1:9/client.json', { allowLoopbackHttp: true }).port).to.equal('9');
    expect(checkClientIdUrl('http://localhost:9/client.json', { allowLoopbackHttp: true }).hostname).to.equal('localhost');
    expect(refused(() => checkClientIdUrl('http://127.0.0.1:9/client.json', { allowLoopbackHttp: false }))).to.match(/it must use https\.$/);
    expect(refused(() => checkClientIdUrl('http://client.example/client.json', { allowLoopbackHttp: true }))).to.contain('http only on a loopback address');
  });

  it('refuses URLs without a path, with a fragment, credentials or dot segments', () => {
    const strict = { allowLoopbackHttp: false };
    expect(refused(() => checkClientIdUrl('https://client.example', strict))).to.contain('it has no path');
    expect(refused(() => checkClientIdUrl('https://client.example/', strict))).to.contain('it has no path');
    expect(refused(() => checkClientIdUrl('https://client.example/?x=1', strict))).to.contain('it has no path');
    expect(refused(() => checkClientIdUrl(`${ID}#top`, strict))).to.contain('fragment');
    expect(refused(() => checkClientIdUrl('https://me:pw@client.example/c.json', strict))).to.contain('credentials');
    expect(refused(() => checkClientIdUrl('https://me@client.example/c.json', strict))).to.contain('credentials');
    for (const dotted of ['https://client.example/a/../c.json', 'https://client.example/./c.json', 'https://client.example/a/%2e%2E/c.json', 'https://client.example/a/..']) {
      expect(refused(() => checkClientIdUrl(dotted, strict)), dotted).to.contain('"." or ".." segments');
    }
    // Dots inside a segment are ordinary characters.
    expect(checkClientIdUrl('https://client.example/.well-known/..client.json', strict).pathname).to.equal('/.well-known/..client.json');
    expect(refused(() => checkClientIdUrl('not a url://x', strict))).to.contain('not an absolute URL');
    expect(refused(() => checkClientIdUrl(`https://client.example/${'a'.repeat(2000)}`, strict))).to.contain('longer than 2000');
  });

  it('knows the service\'s own hosts, dashboards included', () => {
    const hosts = { baseUrl: 'https://dashpub.example', appUrl: 'https://app.dashpub.example', dashboardDomain: 'dash.example' };
    const own = (url: string) => isServiceUrl(new URL(url), hosts);
    expect(own('https://dashpub.example/client.json')).to.equal(true);
    expect(own('https://APP.dashpub.example/c.json')).to.equal(true);
    expect(own('https://alice.dash.example/client.json')).to.equal(true);
    expect(own('https://dash.example/client.json')).to.equal(true);
    expect(own('https://dashpub.example:8443/client.json')).to.equal(false);
    expect(own('https://client.example/client.json')).to.equal(false);
    expect(own('https://notdash.example/client.json')).to.equal(false);
    const local = { baseUrl: 'http://localhost:8787', appUrl: 'http://app.localhost:8787', dashboardDomain: 'dash.localhost:8787' };
    expect(isServiceUrl(new URL('http://localhost:8787/c.json'), local)).to.equal(true);
    expect(isServiceUrl(new URL('http://ada.dash.localhost:8787/c.json'), local)).to.equal(true);
    expect(isServiceUrl(new URL('http://localhost:9999/c.json'), local)).to.equal(false);
  });

  it('accepts a document that names its URL, a name, redirect URIs and auth method none', () => {
    const metadata = parseClientMetadataDocument(ID, doc({ scope: 'mcp', client_uri: 'https://client.example' }));
    expect(metadata).to.deep.equal({
      name: 'Example Client',
      redirectUris: ['http://127.0.0.1:3000/callback'],
      grantTypes: ['authorization_code', 'refresh_token'],
      scope: 'mcp',
    });
  });

  it('refuses documents that are mismatched, secret-bearing, nameless or invalid', () => {
    expect(refused(() => parseClientMetadataDocument(ID, [doc()]))).to.contain('not a JSON object');
    expect(refused(() => parseClientMetadataDocument(ID, doc({ client_id: `${ID}?v=2` })))).to.contain('differs from the URL');
    expect(refused(() => parseClientMetadataDocument(ID, doc({ client_id: undefined })))).to.contain('differs from the URL');
    expect(refused(() => parseClientMetadataDocument(ID, doc({ token_endpoint_auth_method: undefined })))).to.contain('token_endpoint_auth_method to "none"');
    expect(refused(() => parseClientMetadataDocument(ID, doc({ token_endpoint_auth_method: 'private_key_jwt' })))).to.contain('"none"');
    expect(refused(() => parseClientMetadataDocument(ID, doc({ client_secret: 's' })))).to.contain('client secret');
    expect(refused(() => parseClientMetadataDocument(ID, doc({ client_name: undefined })))).to.contain('no client_name');
    expect(refused(() => parseClientMetadataDocument(ID, doc({ client_name: ' \u200b ' })))).to.contain('no client_name');
    expect(refused(() => parseClientMetadataDocument(ID, doc({ redirect_uris: [] })))).to.contain('redirect_uris must list at least one URI');
    expect(refused(() => parseClientMetadataDocument(ID, doc({ redirect_uris: ['http://evil.example/cb'] })))).to.contain('is invalid (redirect URI');
    expect(refused(() => parseClientMetadataDocument(ID, doc({ grant_types: ['client_credentials'] })))).to.contain('not supported');
  });

  it('reuses a document for its Cache-Control lifetime, at most a day, never without one', () => {
    expect(clientMetadataLifetimeSeconds(null)).to.equal(0);
    expect(clientMetadataLifetimeSeconds('public')).to.equal(0);
    expect(clientMetadataLifetimeSeconds('max-age=300')).to.equal(300);
    expect(clientMetadataLifetimeSeconds('public, Max-Age=300', '100')).to.equal(200);
    expect(clientMetadataLifetimeSeconds('max-age=300', '400')).to.equal(0);
    expect(clientMetadataLifetimeSeconds('max-age=300, s-maxage=60')).to.equal(60);
    expect(clientMetadataLifetimeSeconds('max-age="120"')).to.equal(120);
    expect(clientMetadataLifetimeSeconds('max-age=31536000')).to.equal(86_400);
    expect(clientMetadataLifetimeSeconds('max-age=300, no-store')).to.equal(0);
    expect(clientMetadataLifetimeSeconds('no-cache, max-age=300')).to.equal(0);
    expect(clientMetadataLifetimeSeconds('max-age=-5')).to.equal(0);
    expect(clientMetadataLifetimeSeconds('max-age=abc')).to.equal(0);
  });
});
