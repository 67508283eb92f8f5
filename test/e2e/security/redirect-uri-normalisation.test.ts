import { expect } from 'chai';
import { createMigratedTestDatabase, type TestDatabase } from '../../support/database.js';
import { oauthHttp } from '../../support/oauth-http-flow.js';
import { pkcePair } from '../../support/oauth-kit.js';
import { startOAuthServer, type OAuthServer } from '../../support/oauth-server.js';

/**
 * Issue 30, item 13: redirect URIs at /register are kept in URL serialisation, whitespace is refused
 * with RFC 7591's invalid_redirect_uri, and /authorize and /token compare in that same form.
 */
describe('security: redirect URIs at /register are normalised, and matched normalised', function () {
  this.timeout(30_000);
  let database: TestDatabase;
  let server: OAuthServer;
  let flow: ReturnType<typeof oauthHttp>;

  before(async () => {
    database = await createMigratedTestDatabase();
    server = await startOAuthServer({ DATABASE_URL: database.url }, 'database');
    flow = oauthHttp(server);
  });
  after(async () => {
    await server?.close();
    await database?.drop();
  });

  for (const uri of [' http://127.0.0.1:4000/cb', 'http://127.0.0.1:4000/cb ', '\thttps://client.example/cb', 'https://client.example/c b', 'https://client.example/c\nb']) {
    it(`refuses ${JSON.stringify(uri)} with invalid_redirect_uri`, async () => {
      const res = await flow.register([uri]);
      expect(res.status).to.equal(400);
      expect(res.json()).to.have.property('error', 'invalid_redirect_uri');
      expect(res.json<{ error_description: string }>().error_description).to.match(/whitespace|spaces or control characters/);
    });
  }

  it('stores and answers the URL serialisation of what was sent, once per distinct URL', async () => {
    const res = await flow.register(['HTTP://LOCALHOST:4000/cb', 'http://localhost:4000/cb', 'HTTPS://Client.Example:443/a/../cb']);
    expect(res.status).to.equal(201);
    expect(res.json<{ redirect_uris: string[] }>().redirect_uris).to.deep.equal(['http://localhost:4000/cb', 'https://client.example/cb']);
  });

  it('authorizes a spelling of the registered URI, redirects to the normal form, and exchanges the code with either spelling', async () => {
    const web = await flow.signedUp('norma');
    const clientId = (await flow.register(['HTTP://LOCALHOST:4000/cb'])).json<{ client_id: string }>().client_id;
    const pkce = pkcePair();
    const callback = await flow.consent(web, clientId, 'http://LocalHost:4000/cb', pkce.challenge);
    expect(`${callback.origin}${callback.pathname}`).to.equal('http://localhost:4000/cb');
    const code = callback.searchParams.get('code')!;
    const fields = { grant_type: 'authorization_code', code, code_verifier: pkce.verifier, client_id: clientId };
    const mismatched = await flow.token({ ...fields, redirect_uri: 'http://localhost:4001/cb' });
    expect([mismatched.status, mismatched.json().error]).to.deep.equal([400, 'invalid_grant']);
    const exchanged = await flow.token({ ...fields, redirect_uri: 'HTTP://LOCALHOST:4000/cb' });
    expect(exchanged.status, exchanged.text).to.equal(200);
  });

  it('refuses at /authorize a redirect_uri with surrounding whitespace or another path', async () => {
    const clientId = (await flow.register(['http://localhost:4000/cb'])).json<{ client_id: string }>().client_id;
    const pkce = pkcePair();
    for (const redirectUri of [' http://localhost:4000/cb', 'http://localhost:4000/cb/', 'http://localhost:4000/other']) {
      const query = { response_type: 'code', client_id: clientId, redirect_uri: redirectUri, code_challenge: pkce.challenge, code_challenge_method: 'S256' };
      const res = await flow.api(`/authorize?${new URLSearchParams(query)}`);
      expect(res.status, redirectUri).to.equal(400);
      expect(res.headers.location).to.equal(undefined);
      expect(res.text).to.contain('The redirect_uri is not registered for this client.');
    }
  });
});
