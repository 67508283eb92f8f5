import { expect } from 'chai';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpClientMetadataSource } from '../../adapters/http/http-client-metadata-source.js';
import { StartAuthorization } from '../../application/auth/authorize.js';
import { Consent } from '../../application/auth/consent.js';
import { ExchangeToken } from '../../application/auth/exchange-token.js';
import { ClientMetadataSource } from '../../application/ports/client-metadata-source.js';
import { makeAuthKit, pkcePair, type AuthKit } from '../support/oauth-kit.js';
import { aUser } from '../support/mothers.js';

/**
 * The /authorize use case with client ID metadata documents, on memory stores and the real fetch
 * adapter against a loopback server, with a hand-moved clock for the cache lifetime.
 */
describe('application: authorization by client ID metadata document', () => {
  let site: Server;
  let origin: string;
  let fetches = 0;
  let cacheControl = 'max-age=600';
  let name = 'Doc Client';
  let kit: AuthKit;
  const redirectUri = 'http://127.0.0.1:4000/callback';
  const clientId = () => `${origin}/client.json`;

  before(async () => {
    site = createServer((_req, res) => {
      fetches += 1;
      const document = { client_id: clientId(), client_name: name, redirect_uris: [redirectUri], token_endpoint_auth_method: 'none' };
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': cacheControl }).end(JSON.stringify(document));
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', () => resolve()));
    origin = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => site.close(() => resolve())));
  beforeEach(() => {
    fetches = 0;
    cacheControl = 'max-age=600';
    name = 'Doc Client';
    kit = makeAuthKit({ settings: { allowLoopbackClientMetadata: true } });
    kit.container.bind(ClientMetadataSource).toConstantValue(new HttpClientMetadataSource({ allowLoopback: true }));
  });

  const authorize = (ip = '203.0.113.9') =>
    kit.container.get(StartAuthorization).execute(
      {
        response_type: 'code',
        client_id: clientId(),
        redirect_uri: redirectUri,
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
      },
      ip,
    );

  it('uses the stored copy within its lifetime, fetches again after it, and keeps the first sighting', async () => {
    expect((await authorize()).kind).to.equal('consent');
    const first = (await kit.store.findClient(clientId()))!;
    expect(first).to.deep.include({ name: 'Doc Client', redirectUris: [redirectUri] });
    expect(first.metadataExpiresAt?.getTime()).to.equal(kit.clock.ms + 600_000);

    kit.clock.advance(599);
    expect((await authorize()).kind).to.equal('consent');
    expect(fetches).to.equal(1);

    name = 'Doc Client, renamed';
    kit.clock.advance(1);
    expect((await authorize()).kind).to.equal('consent');
    expect(fetches).to.equal(2);
    const second = (await kit.store.findClient(clientId()))!;
    expect(second.name).to.equal('Doc Client, renamed');
    expect(second.createdAt).to.deep.equal(first.createdAt);
  });

  it('caps the lifetime at a day', async () => {
    cacheControl = 'max-age=31536000';
    await authorize();
    expect((await kit.store.findClient(clientId()))!.metadataExpiresAt?.getTime()).to.equal(kit.clock.ms + 86_400_000);
  });

  it('issues tokens to the client by its URL, bound to its redirect URI and PKCE', async () => {
    const pkce = pkcePair();
    const outcome = await kit.container.get(StartAuthorization).execute({
      response_type: 'code',
      client_id: clientId(),
      redirect_uri: redirectUri,
      code_challenge: pkce.challenge,
      code_challenge_method: 'S256',
    });
    expect(outcome.kind).to.equal('consent');
    const handle = new URL((outcome as { location: string }).location).searchParams.get('request')!;
    const user = await aUser(kit.accounts, { handle: 'doc' });
    const view = await kit.container.get(Consent).describe(handle, user.id);
    expect(view).to.deep.include({ clientName: 'Doc Client', clientHost: new URL(origin).host, loopbackRedirect: true });
    const { location } = await kit.container.get(Consent).approve({ requestHandle: handle, userId: user.id, target: 'personal' });
    const code = new URL(location).searchParams.get('code')!;
    const tokens = await kit.container.get(ExchangeToken).execute({
      grant_type: 'authorization_code',
      client_id: clientId(),
      code,
      code_verifier: pkce.verifier,
      redirect_uri: redirectUri,
    });
    expect(tokens.token_type).to.equal('Bearer');
    const grants = await kit.store.listGrants({ userId: user.id });
    expect(grants.map((g) => g.clientId)).to.deep.equal([clientId()]);
  });

  it('counts fetches, not cache hits, against the registration budget of the address', async () => {
    cacheControl = 'no-store';
    for (let i = 0; i < 30; i += 1) expect((await authorize('198.51.100.7')).kind).to.equal('consent');
    const refused = await authorize('198.51.100.7');
    expect(refused).to.deep.equal({
      kind: 'refuse',
      message: `The client ID ${clientId()} cannot be used: too many clients were looked up from your address; retry in a minute.`,
    });
    expect(fetches).to.equal(30);
    expect((await authorize('198.51.100.8')).kind).to.equal('consent');
  });
});
