import { expect } from 'chai';
import { request } from './http.js';
import { pkcePair } from './oauth-kit.js';
import { csrfOf, WebClient, type OAuthServer } from './oauth-server.js';

export const FLOW_REDIRECT = 'http://127.0.0.1:49152/callback';

/** The OAuth endpoints of an OAuthServer as a client sees them over HTTP. */
export function oauthHttp(server: OAuthServer) {
  const api = (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    request({ url: `${server.url}${path}`, host: server.hosts.api, ...init });
  const token = (fields: Record<string, string>) =>
    api('/token', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });
  const register = (redirectUris: unknown[]) => api('/register', { method: 'POST', body: { client_name: 'Flow client', redirect_uris: redirectUris } });

  const signedUp = async (handle: string) => {
    const web = new WebClient(server.url, server.hosts.app);
    const form = await web.get('/sign-up');
    const res = await web.post('/sign-up', { csrf: csrfOf(form), handle, email: `${handle}@example.com`, password: 'correct horse battery', return_to: '/account' });
    expect(res.status).to.equal(303);
    return web;
  };

  /** Authorizes `clientId` for the signed-in `web` user (personal account) and returns the redirect it answers. */
  const consent = async (web: WebClient, clientId: string, redirectUri: string, challenge: string) => {
    const query = { response_type: 'code', client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: 'S256', state: 's' };
    const started = await api(`/authorize?${new URLSearchParams(query)}`);
    expect(started.status, started.text).to.equal(302);
    const location = new URL(started.headers.location!);
    const page = await web.get(`${location.pathname}${location.search}`);
    const requestId = location.searchParams.get('request')!;
    const allowed = await web.post('/consent', { csrf: csrfOf(page), request: requestId, decision: 'allow', target: 'personal' });
    expect(allowed.status).to.equal(303);
    return new URL(allowed.headers.location!);
  };

  /** A registered client with a first token pair for `handle`. */
  const tokensFor = async (handle: string) => {
    const web = await signedUp(handle);
    const registered = await register([FLOW_REDIRECT]);
    expect(registered.status).to.equal(201);
    const clientId = registered.json<{ client_id: string }>().client_id;
    const pkce = pkcePair();
    const callback = await consent(web, clientId, FLOW_REDIRECT, pkce.challenge);
    const code = callback.searchParams.get('code')!;
    const res = await token({ grant_type: 'authorization_code', code, code_verifier: pkce.verifier, redirect_uri: FLOW_REDIRECT, client_id: clientId });
    expect(res.status, res.text).to.equal(200);
    return { clientId, ...res.json<{ access_token: string; refresh_token: string }>() };
  };

  return { api, token, register, signedUp, consent, tokensFor };
}
