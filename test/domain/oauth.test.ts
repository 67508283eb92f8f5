import { expect } from 'chai';
import { isLoopbackRedirect, matchRedirectUri, parseClientRegistration, validateRedirectUri } from '../../domain/oauth-clients.js';
import {
  ACCESS_TOKEN_MAX_SECONDS,
  accessTokenExpiry,
  checkCodeChallenge,
  checkCodeVerifier,
  checkResource,
  decideRefresh,
  grantedScope,
  OAuthError,
  EMPTY_REFRESH_CHAIN,
  type RefreshChain,
} from '../../domain/oauth.js';

const oauthError = (fn: () => unknown): OAuthError => {
  try {
    fn();
  } catch (error) {
    expect(error).to.be.instanceOf(OAuthError);
    return error as OAuthError;
  }
  throw new Error('expected an OAuthError');
};

describe('domain/oauth: redirect URIs', () => {
  it('accepts https and loopback http', () => {
    for (const uri of [
      'https://client.example/callback',
      'https://client.example:8443/cb?x=1',
      'http://127.0.0.1:53682/callback',
      'http://[::1]:8080/cb',
      'http://localhost:3000/oauth/callback',
    ]) {
      expect(validateRedirectUri(uri)).to.equal(uri);
    }
  });

  it('refuses plain http off loopback, other schemes, fragments, credentials and junk', () => {
    for (const uri of [
      'http://client.example/callback',
      'http://127.0.0.1.evil.example/cb',
      'javascript:alert(1)',
      'ftp://client.example/cb',
      'https://client.example/cb#frag',
      'https://client.example/cb#',
      'https://user:pw@client.example/cb',
      '/relative/callback',
      '',
      42,
    ]) {
      expect(oauthError(() => validateRedirectUri(uri)).error, String(uri)).to.equal('invalid_redirect_uri');
    }
  });

  it('keeps the URL serialisation, and matches requests in that form only', () => {
    expect(validateRedirectUri('HTTP://LOCALHOST:3000/cb')).to.equal('http://localhost:3000/cb');
    expect(validateRedirectUri('HTTPS://Client.Example:443/a/../cb')).to.equal('https://client.example/cb');
    expect(matchRedirectUri(['http://localhost:3000/cb'], 'http://LocalHost:3000/cb')).to.equal('http://localhost:3000/cb');
    expect(matchRedirectUri(['HTTP://LOCALHOST:3000/cb'], 'http://localhost:3000/cb')).to.equal('http://localhost:3000/cb');
    for (const presented of [' http://localhost:3000/cb', 'http://localhost:3000/cb/', 'http://localhost:3001/cb', 'http://local\thost:3000/cb']) {
      expect(matchRedirectUri(['http://localhost:3000/cb'], presented), presented).to.equal(null);
    }
  });

  it('refuses whitespace around a redirect URI and spaces or control characters in it', () => {
    expect(oauthError(() => validateRedirectUri(' https://client.example/cb')).description).to.equal('redirect URI " https://client.example/cb" must not begin or end with whitespace');
    expect(oauthError(() => validateRedirectUri('https://client.example/c b')).description).to.equal('redirect URI "https://client.example/c b" must not contain spaces or control characters');
    expect(oauthError(() => validateRedirectUri('https://client.exa\u0000mple/cb')).error).to.equal('invalid_redirect_uri');
  });

  it('tells loopback redirects from remote ones', () => {
    expect(isLoopbackRedirect('http://127.0.0.1:1/cb')).to.equal(true);
    expect(isLoopbackRedirect('http://localhost/cb')).to.equal(true);
    expect(isLoopbackRedirect('https://client.example/cb')).to.equal(false);
  });
});

describe('domain/oauth: client registration', () => {
  it('accepts a public client and fills defaults', () => {
    const parsed = parseClientRegistration({
      client_name: '  Claude\u202e Code ',
      redirect_uris: ['http://127.0.0.1:5000/cb', 'http://127.0.0.1:5000/cb'],
      token_endpoint_auth_method: 'none',
      unknown_field: true,
    });
    expect(parsed).to.deep.equal({
      name: 'Claude Code',
      redirectUris: ['http://127.0.0.1:5000/cb'],
      grantTypes: ['authorization_code', 'refresh_token'],
      scope: null,
    });
  });

  it('refuses confidential clients, missing redirect URIs and unsupported grants', () => {
    expect(oauthError(() => parseClientRegistration({ redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'client_secret_basic' })).error).to.equal('invalid_client_metadata');
    expect(oauthError(() => parseClientRegistration({ redirect_uris: [] })).error).to.equal('invalid_redirect_uri');
    expect(oauthError(() => parseClientRegistration({})).error).to.equal('invalid_redirect_uri');
    expect(oauthError(() => parseClientRegistration({ redirect_uris: ['http://evil.example/cb'] })).error).to.equal('invalid_redirect_uri');
    expect(oauthError(() => parseClientRegistration({ redirect_uris: ['https://a.example/cb'], grant_types: ['implicit'] })).error).to.equal('invalid_client_metadata');
    expect(oauthError(() => parseClientRegistration({ redirect_uris: ['https://a.example/cb'], response_types: ['token'] })).error).to.equal('invalid_client_metadata');
    expect(oauthError(() => parseClientRegistration([])).error).to.equal('invalid_client_metadata');
  });
});

describe('domain/oauth: PKCE', () => {
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

  it('accepts an S256 challenge', () => {
    expect(checkCodeChallenge(challenge, 'S256')).to.equal(challenge);
  });

  it('refuses a missing challenge, plain, a missing method and a malformed challenge', () => {
    expect(oauthError(() => checkCodeChallenge(undefined, 'S256')).description).to.match(/code_challenge is required/);
    expect(oauthError(() => checkCodeChallenge(challenge, 'plain')).description).to.match(/must be S256/);
    expect(oauthError(() => checkCodeChallenge(challenge, undefined)).description).to.match(/must be S256/);
    expect(oauthError(() => checkCodeChallenge('short', 'S256')).error).to.equal('invalid_request');
  });

  it('checks the verifier shape', () => {
    expect(checkCodeVerifier('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).to.have.length(43);
    expect(oauthError(() => checkCodeVerifier(undefined)).error).to.equal('invalid_request');
    expect(oauthError(() => checkCodeVerifier('too-short')).error).to.equal('invalid_grant');
  });
});

describe('domain/oauth: scope, resource and lifetimes', () => {
  it('grants the mcp scope and refuses a non-string scope', () => {
    expect(grantedScope(undefined)).to.equal('mcp');
    expect(grantedScope('mcp something-else')).to.equal('mcp');
    expect(oauthError(() => grantedScope(['mcp'])).error).to.equal('invalid_scope');
  });

  it('binds to the MCP resource only', () => {
    const mcp = 'http://localhost:8787/mcp';
    expect(checkResource(undefined, mcp)).to.equal(mcp);
    expect(checkResource('http://localhost:8787/mcp/', mcp)).to.equal(mcp);
    expect(oauthError(() => checkResource('https://elsewhere.example/mcp', mcp)).error).to.equal('invalid_target');
  });

  it('issues access tokens for at most 50 minutes, ending before the session', () => {
    const now = new Date(Date.UTC(2026, 0, 1));
    const far = new Date(now.getTime() + 30 * 86_400_000);
    expect(accessTokenExpiry(now, far)!.getTime() - now.getTime()).to.equal(ACCESS_TOKEN_MAX_SECONDS * 1000);
    expect(ACCESS_TOKEN_MAX_SECONDS).to.equal(3000);
    const soon = new Date(now.getTime() + 10 * 60_000);
    const clamped = accessTokenExpiry(now, soon)!;
    expect(clamped.getTime()).to.be.lessThan(soon.getTime());
    expect(clamped.getTime()).to.be.greaterThan(now.getTime());
    expect(accessTokenExpiry(now, new Date(now.getTime() + 500))).to.equal(null);
  });
});

describe('domain/oauth: refresh rotation', () => {
  const same = (a: string, b: string) => a === b;
  const T0 = new Date('2026-01-01T00:00:00Z');
  const later = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
  const chain: RefreshChain = { currentHash: 'c', previousHash: 'p', previousRetryLeft: true, rotatedAt: T0, rotationRequest: 'f' };
  const request = (seconds: number, fingerprint = 'f') => ({ fingerprint, now: later(seconds), graceSeconds: 10 });

  it('rotates the current token, keeping it as the previous one with one retry of this request', () => {
    const decision = decideRefresh(chain, 'c', request(60, 'g'), same);
    expect(decision.kind).to.equal('rotate');
    if (decision.kind === 'rotate') {
      expect(decision.next('n')).to.deep.equal({ currentHash: 'n', previousHash: 'c', previousRetryLeft: true, rotatedAt: later(60), rotationRequest: 'g' });
    }
  });

  it('accepts the previous token once, as a retry of the same request within the window', () => {
    const decision = decideRefresh(chain, 'p', request(10), same);
    expect(decision.kind).to.equal('rotate');
    if (decision.kind !== 'rotate') return;
    const after = decision.next('n');
    expect(after).to.deep.equal({ currentHash: 'n', previousHash: 'p', previousRetryLeft: false, rotatedAt: T0, rotationRequest: 'f' });
    expect(decideRefresh(after, 'p', request(1), same).kind).to.equal('reuse');
  });

  it('calls the previous token reuse after the window or for another request', () => {
    expect(decideRefresh(chain, 'p', request(11), same).kind).to.equal('reuse');
    expect(decideRefresh(chain, 'p', request(1, 'other'), same).kind).to.equal('reuse');
    expect(decideRefresh(chain, 'p', request(-1), same).kind).to.equal('reuse');
    expect(decideRefresh({ ...chain, rotatedAt: null, rotationRequest: null }, 'p', request(0), same).kind).to.equal('reuse');
  });

  it('calls anything older reuse', () => {
    expect(decideRefresh(chain, 'older', request(0), same).kind).to.equal('reuse');
    expect(decideRefresh(EMPTY_REFRESH_CHAIN, 'x', request(0), same).kind).to.equal('reuse');
  });
});
