import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';

/** Who signs in at the fake provider next (the claims its ID token carries). */
export interface FakePerson {
  sub: string;
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
}

/** How the provider misbehaves on the next sign-in, for the refusal tests. */
export interface FakeBehaviour {
  /** Answer `error=access_denied` instead of a code. */
  deny?: boolean;
  /** Put another nonce than the one received into the ID token. */
  forgeNonce?: boolean;
}

interface IssuedCode {
  person: FakePerson;
  behaviour: FakeBehaviour;
  clientId: string;
  redirectUri: string;
  nonce: string;
  challenge: string;
}

export interface FakeOidcProvider {
  issuer: string;
  /** Chooses who the next authorization signs in as (and how the provider behaves). */
  signInAs(person: FakePerson, behaviour?: FakeBehaviour): void;
  /** What the last /authorize request asked for (to check scope, PKCE method, nonce). */
  lastAuthorization: URLSearchParams | null;
  /** How many times the discovery document was fetched. */
  discoveryRequests: number;
  /** The Authorization header of the last token request. */
  lastTokenAuthorization: string | undefined;
  close(): Promise<void>;
}

/**
 * A tiny OpenID Connect provider on 127.0.0.1 for tests: discovery, JWKS, an /authorize that signs
 * the chosen person in at once and redirects back with a code and the state, and a /token that checks
 * the client, the redirect URI and the PKCE verifier and returns an RS256 ID token with the nonce.
 */
export async function startFakeOidcProvider(client: { clientId: string; clientSecret?: string }): Promise<FakeOidcProvider> {
  const { publicKey, privateKey } = await generateKeyPair('RS256');
  const jwk: JWK = { ...(await exportJWK(publicKey)), kid: 'test-key', alg: 'RS256', use: 'sig' };
  const codes = new Map<string, IssuedCode>();
  let next: { person: FakePerson; behaviour: FakeBehaviour } | null = null;
  let issuer = '';

  const json = (res: http.ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end(JSON.stringify(body));

  const authorize = (url: URL, res: http.ServerResponse) => {
    provider.lastAuthorization = url.searchParams;
    const q = url.searchParams;
    const redirectUri = q.get('redirect_uri')!;
    if (q.get('client_id') !== client.clientId || !next) return json(res, 400, { error: 'invalid_request' });
    const back = new URL(redirectUri);
    back.searchParams.set('state', q.get('state') ?? '');
    back.searchParams.set('iss', issuer);
    if (next.behaviour.deny) {
      back.searchParams.set('error', 'access_denied');
    } else {
      const code = randomBytes(16).toString('base64url');
      codes.set(code, { ...next, clientId: client.clientId, redirectUri, nonce: q.get('nonce') ?? '', challenge: q.get('code_challenge') ?? '' });
      back.searchParams.set('code', code);
    }
    res.writeHead(302, { location: back.href }).end();
  };

  const token = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    provider.lastTokenAuthorization = req.headers.authorization;
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
    if (client.clientSecret && !basicAuthMatches(req.headers.authorization, client.clientId, client.clientSecret)) {
      return json(res, 401, { error: 'invalid_client' });
    }
    const issued = codes.get(form.get('code') ?? '');
    codes.delete(form.get('code') ?? '');
    const verifier = form.get('code_verifier') ?? '';
    if (
      form.get('grant_type') !== 'authorization_code' ||
      !issued ||
      issued.redirectUri !== form.get('redirect_uri') ||
      createHash('sha256').update(verifier).digest('base64url') !== issued.challenge
    ) {
      return json(res, 400, { error: 'invalid_grant' });
    }
    const nonce = issued.behaviour.forgeNonce ? 'not-the-nonce-it-was-given' : issued.nonce;
    const idToken = await new SignJWT({ ...issued.person, nonce })
      .setProtectedHeader({ alg: 'RS256', kid: jwk.kid! })
      .setIssuer(issuer)
      .setAudience(issued.clientId)
      .setSubject(issued.person.sub)
      .setIssuedAt()
      .setExpirationTime('5m')
      .sign(privateKey);
    json(res, 200, { access_token: randomBytes(16).toString('base64url'), token_type: 'Bearer', expires_in: 300, id_token: idToken });
  };

  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', issuer);
    if (req.method === 'GET' && url.pathname === '/.well-known/openid-configuration') {
      provider.discoveryRequests++;
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/authorize`,
        token_endpoint: `${issuer}/token`,
        jwks_uri: `${issuer}/jwks`,
        response_types_supported: ['code'],
        subject_types_supported: ['public'],
        id_token_signing_alg_values_supported: ['RS256'],
        code_challenge_methods_supported: ['S256'],
        token_endpoint_auth_methods_supported: ['client_secret_basic', 'none'],
        authorization_response_iss_parameter_supported: true,
        scopes_supported: ['openid', 'email', 'profile'],
      });
    }
    if (req.method === 'GET' && url.pathname === '/jwks') return json(res, 200, { keys: [jwk] });
    if (req.method === 'GET' && url.pathname === '/authorize') return authorize(url, res);
    if (req.method === 'POST' && url.pathname === '/token') return void token(req, res).catch(() => json(res, 500, { error: 'server_error' }));
    json(res, 404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const provider: FakeOidcProvider = {
    issuer,
    lastAuthorization: null,
    discoveryRequests: 0,
    lastTokenAuthorization: undefined,
    signInAs(person, behaviour = {}) {
      next = { person, behaviour };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
  return provider;
}

/** client_secret_basic (RFC 6749 §2.3.1): both parts form-urlencoded, then base64. */
function basicAuthMatches(header: string | undefined, clientId: string, clientSecret: string): boolean {
  if (!header?.startsWith('Basic ')) return false;
  const decoded = Buffer.from(header.slice(6), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  const part = (value: string) => decodeURIComponent(value.replace(/\+/g, ' '));
  return colon > 0 && part(decoded.slice(0, colon)) === clientId && part(decoded.slice(colon + 1)) === clientSecret;
}
