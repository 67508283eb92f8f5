import { expect } from 'chai';
import { StartAuthorization } from '../../application/auth/authorize.js';
import { Consent, workspaceTarget } from '../../application/auth/consent.js';
import { ExchangeToken } from '../../application/auth/exchange-token.js';
import { Grants } from '../../application/auth/grants.js';
import { RegisterClient } from '../../application/auth/register-client.js';
import type { OAuthData, OAuthStore } from '../../application/ports/oauth-store.js';
import { TokenVerifier } from '../../application/ports/token-verifier.js';
import { ACCESS_TOKEN_MAX_SECONDS, AUTHORIZATION_REQUEST_TTL_SECONDS, GRANT_SESSION_SECONDS, OAuthError } from '../../domain/oauth.js';
import { pkcePair, type AuthKit } from '../support/oauth-kit.js';
import { refusal } from '../support/refusal.js';
import { approve, mintAccessToken, redeem, startAuthorization, TEST_REDIRECT_URI } from '../support/tokens.js';
import { aUser, aWorkspace } from '../support/mothers.js';

const oauthRefusal = (promise: Promise<unknown>) => refusal(promise, OAuthError);

/** The store with one operation failing once inside transactions: a transient fault. */
function failingOnce(store: OAuthStore, operation: keyof OAuthData): OAuthStore & { failures: number } {
  const state = { failures: 0, armed: true };
  const wrapTx = (tx: OAuthData) =>
    new Proxy(tx, {
      get(target, key, receiver) {
        const value = Reflect.get(target, key, receiver);
        if (key !== operation || typeof value !== 'function') return typeof value === 'function' ? value.bind(target) : value;
        return async (...args: unknown[]) => {
          if (state.armed) {
            state.armed = false;
            state.failures += 1;
            throw new Error('connection reset (injected)');
          }
          return value.apply(target, args);
        };
      },
    });
  return new Proxy(store, {
    get(target, key, receiver) {
      if (key === 'failures') return state.failures;
      if (key === 'transaction') return <T>(work: (tx: OAuthData) => Promise<T>) => target.transaction((tx) => work(wrapTx(tx)));
      const value = Reflect.get(target, key, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  }) as OAuthStore & { failures: number };
}

/** Makes a kit on fresh (or emptied) stores; `wrap` decorates the OAuth store, e.g. for fault injection. */
export type KitFactory = (wrap?: (store: OAuthStore) => OAuthStore) => Promise<AuthKit>;

export function describeOAuthFlows(label: string, makeKit: KitFactory): void {
  describe(`OAuth flows (application, ${label})`, () => {
    let kit: AuthKit;
    let userId: string;
    const verifier = () => kit.container.get<TokenVerifier>(TokenVerifier);
    const exchange = () => kit.container.get(ExchangeToken);

    beforeEach(async () => {
      kit = await makeKit();
      userId = (await aUser(kit.accounts, { handle: 'alice' })).id;
    });

    async function authorizeParams(overrides: Record<string, string | undefined> = {}) {
      const client = await kit.container.get(RegisterClient).execute({ client_name: 'Client', redirect_uris: [TEST_REDIRECT_URI] }, '10.0.0.1');
      const { challenge } = pkcePair();
      return {
        client,
        params: {
          response_type: 'code',
          client_id: client.client_id,
          redirect_uri: TEST_REDIRECT_URI,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          state: 'xyz',
          ...overrides,
        },
      };
    }

    describe('authorize', () => {
      it('stores the request and sends the browser to the consent screen', async () => {
        const { params } = await authorizeParams();
        const outcome = await kit.container.get(StartAuthorization).execute(params);
        expect(outcome.kind).to.equal('consent');
        if (outcome.kind !== 'consent') return;
        const url = new URL(outcome.location);
        expect(`${url.origin}${url.pathname}`).to.equal(`${kit.settings.appUrl}/consent`);
        expect(url.searchParams.get('request')).to.match(/^[A-Za-z0-9_-]{43}$/);
      });

      it('refuses a missing PKCE challenge, by redirect with invalid_request', async () => {
        const { params } = await authorizeParams({ code_challenge: undefined, code_challenge_method: undefined });
        const outcome = await kit.container.get(StartAuthorization).execute(params);
        expect(outcome.kind).to.equal('redirect');
        if (outcome.kind !== 'redirect') return;
        const url = new URL(outcome.location);
        expect(url.searchParams.get('error')).to.equal('invalid_request');
        expect(url.searchParams.get('error_description')).to.match(/code_challenge is required/);
        expect(url.searchParams.get('state')).to.equal('xyz');
        expect(url.searchParams.get('iss')).to.equal(kit.settings.baseUrl);
      });

      it('refuses PKCE plain', async () => {
        const { params } = await authorizeParams({ code_challenge_method: 'plain' });
        const outcome = await kit.container.get(StartAuthorization).execute(params);
        expect(outcome.kind).to.equal('redirect');
        if (outcome.kind === 'redirect') expect(new URL(outcome.location).searchParams.get('error_description')).to.match(/must be S256/);
      });

      it('never redirects for an unknown client or an unregistered redirect URI', async () => {
        const start = kit.container.get(StartAuthorization);
        const { params } = await authorizeParams();
        const unknown = await start.execute({ ...params, client_id: 'no-such-client' });
        expect(unknown).to.deep.equal({ kind: 'refuse', message: 'The client is not registered with this service. Connect it again from your client.' });
        for (const redirect_uri of ['http://127.0.0.1:53682/callback/', 'http://127.0.0.1:53683/callback', 'https://evil.example/cb', undefined]) {
          const outcome = await start.execute({ ...params, redirect_uri });
          expect(outcome.kind, String(redirect_uri)).to.equal('refuse');
        }
      });

      it('refuses an unsupported response type by redirect', async () => {
        const { params } = await authorizeParams({ response_type: 'token' });
        const outcome = await kit.container.get(StartAuthorization).execute(params);
        expect(outcome.kind).to.equal('redirect');
        if (outcome.kind === 'redirect') expect(new URL(outcome.location).searchParams.get('error')).to.equal('unsupported_response_type');
      });

      it('expires a stored request after 30 minutes', async () => {
        const started = await startAuthorization(kit.container);
        kit.clock.advance(AUTHORIZATION_REQUEST_TTL_SECONDS - 1);
        expect((await kit.container.get(Consent).describe(started.requestHandle, userId)).clientName).to.equal('Test client');
        kit.clock.advance(2);
        const error = await refusal(approve(kit.container, started, userId));
        expect(error.message).to.match(/expired or was already answered/);
        await refusal(kit.container.get(Consent).describe(started.requestHandle, userId));
      });
    });

    describe('consent', () => {
      it('approval answers a code and the state, and consumes the request', async () => {
        const started = await startAuthorization(kit.container);
        const { location } = await kit.container.get(Consent).approve({ requestHandle: started.requestHandle, userId, target: 'personal' });
        const url = new URL(location);
        expect(`${url.origin}${url.pathname}`).to.equal(TEST_REDIRECT_URI);
        expect(url.searchParams.get('code')).to.match(/^[A-Za-z0-9_-]{43}$/);
        expect(url.searchParams.get('state')).to.equal(started.state);
        await refusal(kit.container.get(Consent).approve({ requestHandle: started.requestHandle, userId, target: 'personal' }));
      });

      it('cancel sends access_denied with the state, and consumes the request', async () => {
        const started = await startAuthorization(kit.container);
        const { location } = await kit.container.get(Consent).deny({ requestHandle: started.requestHandle });
        const url = new URL(location);
        expect(url.searchParams.get('error')).to.equal('access_denied');
        expect(url.searchParams.get('error_description')).to.equal('The user declined the authorization request.');
        expect(url.searchParams.get('state')).to.equal(started.state);
        expect(url.searchParams.has('code')).to.equal(false);
        await refusal(approve(kit.container, started, userId));
      });

      it('a failure before the request is consumed leaves it retryable, with nothing half-made', async () => {
        let store!: OAuthStore & { failures: number };
        kit = await makeKit((inner) => (store = failingOnce(inner, 'insertCode')));
        userId = (await aUser(kit.accounts, { handle: 'bob' })).id;
        const started = await startAuthorization(kit.container);
        let failed: unknown;
        await approve(kit.container, started, userId).catch((error) => (failed = error));
        expect(String(failed)).to.match(/injected/);
        expect(store.failures).to.equal(1);
        expect(await store.listGrants({ userId })).to.deep.equal([]);
        // Confirming again is safe: the same request now completes.
        const code = await approve(kit.container, started, userId);
        const tokens = await redeem(kit.container, started, code);
        expect(await verifier().verify(tokens.access_token)).to.include({ userId });
        expect(await store.listGrants({ userId })).to.have.length(1);
      });

      it('a failure at the consume itself also rolls back', async () => {
        let store!: OAuthStore & { failures: number };
        kit = await makeKit((inner) => (store = failingOnce(inner, 'deleteAuthorizationRequest')));
        userId = (await aUser(kit.accounts, { handle: 'bob' })).id;
        const started = await startAuthorization(kit.container);
        await approve(kit.container, started, userId).catch(() => undefined);
        expect(store.failures).to.equal(1);
        expect(await store.listGrants({ userId })).to.deep.equal([]);
        expect(await approve(kit.container, started, userId)).to.be.a('string');
      });

      it('locks the grant to a workspace the user belongs to, and refuses one they do not', async () => {
        const team = await aWorkspace(kit.accounts, { slug: 'team', name: 'The Team' });
        const other = await aWorkspace(kit.accounts, { slug: 'other', name: 'Other' });
        await kit.accounts.addMember(team.id, userId, 'member');
        const view = await kit.container.get(Consent).describe((await startAuthorization(kit.container)).requestHandle, userId);
        expect(view.user!.targets.map((t) => [t.kind, t.label, t.name])).to.deep.equal([
          ['personal', 'Personal account', 'alice'],
          ['workspace', 'The Team', 'team'],
        ]);
        const minted = await mintAccessToken(kit.container, { userId, lock: { kind: 'workspace', workspaceId: team.id } });
        expect((await verifier().verify(minted.access_token))!.lock).to.deep.equal({ kind: 'workspace', workspaceId: team.id, workspaceSlug: 'team' });

        const started = await startAuthorization(kit.container);
        const error = await refusal(
          kit.container.get(Consent).approve({ requestHandle: started.requestHandle, userId, target: workspaceTarget(other.id) }),
        );
        expect(error.code).to.equal('forbidden');
        expect(await approve(kit.container, started, userId)).to.be.a('string');
      });
    });

    describe('token exchange', () => {
      it('redeems a code once for an access and a refresh token', async () => {
        const started = await startAuthorization(kit.container);
        const tokens = await redeem(kit.container, started, await approve(kit.container, started, userId));
        expect(tokens.token_type).to.equal('Bearer');
        expect(tokens.scope).to.equal('mcp');
        expect(tokens.expires_in).to.equal(ACCESS_TOKEN_MAX_SECONDS);
        expect(tokens.refresh_token).to.match(/^[A-Za-z0-9_-]{43}$/);
        expect(await verifier().verify(tokens.access_token)).to.deep.include({ userId, lock: { kind: 'personal' }, scope: 'mcp' });
      });

      it('refuses a missing or wrong PKCE verifier', async () => {
        const started = await startAuthorization(kit.container);
        const code = await approve(kit.container, started, userId);
        const base = { grant_type: 'authorization_code', code, redirect_uri: started.redirectUri, client_id: started.clientId };
        const missing = await oauthRefusal(exchange().execute(base));
        expect([missing.error, missing.description]).to.deep.equal(['invalid_request', 'code_verifier is required']);
        const wrong = await oauthRefusal(exchange().execute({ ...base, code_verifier: pkcePair().verifier }));
        expect([wrong.error, wrong.description]).to.deep.equal(['invalid_grant', 'code_verifier does not match the code challenge']);
      });

      it('a replayed code is refused and revokes its grant', async () => {
        const started = await startAuthorization(kit.container);
        const code = await approve(kit.container, started, userId);
        const tokens = await redeem(kit.container, started, code);
        expect(await verifier().verify(tokens.access_token)).to.not.equal(null);
        const replay = await oauthRefusal(redeem(kit.container, started, code));
        expect(replay.error).to.equal('invalid_grant');
        expect(replay.description).to.match(/replayed/);
        expect(await verifier().verify(tokens.access_token)).to.equal(null);
        const refresh = await oauthRefusal(exchange().execute({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: started.clientId }));
        expect(refresh.error).to.equal('invalid_grant');
      });

      it('refuses a code presented by another client', async () => {
        const started = await startAuthorization(kit.container);
        const intruder = await startAuthorization(kit.container, { clientName: 'Intruder' });
        const code = await approve(kit.container, started, userId);
        const error = await oauthRefusal(
          exchange().execute({ grant_type: 'authorization_code', code, code_verifier: started.verifier, redirect_uri: started.redirectUri, client_id: intruder.clientId }),
        );
        expect([error.error, error.description]).to.deep.equal(['invalid_grant', 'the authorization code was issued to another client']);
      });

      it('refuses a redirect URI that differs from the authorization request', async () => {
        const started = await startAuthorization(kit.container);
        const code = await approve(kit.container, started, userId);
        for (const redirect_uri of ['http://127.0.0.1:53682/other', undefined]) {
          const error = await oauthRefusal(
            exchange().execute({ grant_type: 'authorization_code', code, code_verifier: started.verifier, redirect_uri, client_id: started.clientId }),
          );
          expect(error.error).to.equal('invalid_grant');
          expect(error.description).to.match(/redirect_uri/);
        }
        expect((await redeem(kit.container, started, code)).access_token).to.be.a('string');
      });

      it('refuses an expired code', async () => {
        const started = await startAuthorization(kit.container);
        const code = await approve(kit.container, started, userId);
        kit.clock.advance(61);
        const error = await oauthRefusal(redeem(kit.container, started, code));
        expect([error.error, error.description]).to.deep.equal(['invalid_grant', 'the authorization code has expired']);
      });

      it('refuses unknown clients, grant types and resources', async () => {
        const started = await startAuthorization(kit.container);
        expect((await oauthRefusal(exchange().execute({ grant_type: 'authorization_code', client_id: 'nope', code: 'x' }))).error).to.equal('invalid_client');
        expect((await oauthRefusal(exchange().execute({ grant_type: 'password', client_id: started.clientId }))).error).to.equal('unsupported_grant_type');
        expect((await oauthRefusal(exchange().execute({ grant_type: 'refresh_token', client_id: started.clientId, refresh_token: 'x', resource: 'https://elsewhere.example/' }))).error).to.equal('invalid_target');
      });
    });

    describe('refresh', () => {
      const refresh = (clientId: string, refresh_token: string) => exchange().execute({ grant_type: 'refresh_token', refresh_token, client_id: clientId });

      it('rotates the refresh token and issues a working access token', async () => {
        const first = await mintAccessToken(kit.container, { userId });
        const second = await refresh(first.clientId, first.refresh_token);
        expect(second.refresh_token).to.not.equal(first.refresh_token);
        expect(second.access_token).to.not.equal(first.access_token);
        expect((await verifier().verify(second.access_token))!.grantId).to.equal(first.grantId);
        const third = await refresh(first.clientId, second.refresh_token);
        expect(await verifier().verify(third.access_token)).to.not.equal(null);
      });

      it('accepts the previous refresh token once; older reuse revokes that grant only', async () => {
        const grantA = await mintAccessToken(kit.container, { userId, clientName: 'A' });
        const grantB = await mintAccessToken(kit.container, { userId, clientName: 'B' });
        const rotated = await refresh(grantA.clientId, grantA.refresh_token);
        // The response was lost: the client retries with the token it still has.
        const retried = await refresh(grantA.clientId, grantA.refresh_token);
        expect(await verifier().verify(retried.access_token)).to.not.equal(null);
        // A third use of that token is reuse: grant A goes, with every token of it.
        const error = await oauthRefusal(refresh(grantA.clientId, grantA.refresh_token));
        expect([error.error, error.description]).to.deep.equal(['invalid_grant', 'refresh token reused: the authorization is revoked']);
        expect(await verifier().verify(retried.access_token)).to.equal(null);
        expect(await verifier().verify(rotated.access_token)).to.equal(null);
        expect((await oauthRefusal(refresh(grantA.clientId, retried.refresh_token))).error).to.equal('invalid_grant');
        // Grant B of the same user is untouched.
        expect(await verifier().verify(grantB.access_token)).to.not.equal(null);
        const b2 = await refresh(grantB.clientId, grantB.refresh_token);
        expect(await verifier().verify(b2.access_token)).to.deep.include({ userId });
      });

      it('reuse of an older token (two rotations back) revokes the grant', async () => {
        const minted = await mintAccessToken(kit.container, { userId });
        const second = await refresh(minted.clientId, minted.refresh_token);
        await refresh(minted.clientId, second.refresh_token);
        expect((await oauthRefusal(refresh(minted.clientId, minted.refresh_token))).description).to.match(/revoked/);
        expect((await kit.store.findGrant(minted.grantId))!.revokedReason).to.equal('refresh token reused');
      });

      it('refuses a refresh token presented by another client', async () => {
        const minted = await mintAccessToken(kit.container, { userId });
        const other = await startAuthorization(kit.container, { clientName: 'Other' });
        expect((await oauthRefusal(refresh(other.clientId, minted.refresh_token))).description).to.equal('the refresh token was issued to another client');
      });

      it('clamps access tokens before the session ends, and refuses refresh after it', async () => {
        const minted = await mintAccessToken(kit.container, { userId });
        kit.clock.advance(GRANT_SESSION_SECONDS - 20 * 60);
        const late = await refresh(minted.clientId, minted.refresh_token);
        expect(late.expires_in).to.be.at.most(20 * 60 - 1);
        expect(late.expires_in).to.be.greaterThan(0);
        kit.clock.advance(late.expires_in);
        expect(await verifier().verify(late.access_token)).to.equal(null);
        kit.clock.advance(2);
        expect((await oauthRefusal(refresh(minted.clientId, late.refresh_token))).description).to.match(/session of this authorization has ended/);
      });

      it('access tokens stop working after 50 minutes', async () => {
        const minted = await mintAccessToken(kit.container, { userId });
        kit.clock.advance(ACCESS_TOKEN_MAX_SECONDS - 1);
        expect(await verifier().verify(minted.access_token)).to.not.equal(null);
        kit.clock.advance(1);
        expect(await verifier().verify(minted.access_token)).to.equal(null);
      });
    });

    describe('grants', () => {
      it('a revoked grant fails verification at once', async () => {
        const minted = await mintAccessToken(kit.container, { userId });
        const [listed] = await kit.container.get(Grants).list({ handle: 'alice' });
        expect(listed).to.include({ id: minted.grantId, user: 'alice', clientName: 'Test client', lock: 'personal', status: 'active' });
        const revoked = await kit.container.get(Grants).revoke(minted.grantId);
        expect(revoked.status).to.equal('revoked');
        expect(await verifier().verify(minted.access_token)).to.equal(null);
        expect((await oauthRefusal(exchange().execute({ grant_type: 'refresh_token', refresh_token: minted.refresh_token, client_id: minted.clientId }))).description).to.equal('the authorization has been revoked');
      });

      it('lists one user\'s grants, and refuses an unknown user', async () => {
        await mintAccessToken(kit.container, { userId });
        const other = await aUser(kit.accounts, { handle: 'olga' });
        await mintAccessToken(kit.container, { userId: other.id, clientName: 'Other client' });
        expect((await kit.container.get(Grants).list()).map((g) => g.user).sort()).to.deep.equal(['alice', 'olga']);
        expect((await kit.container.get(Grants).list({ handle: 'olga' })).map((g) => g.clientName)).to.deep.equal(['Other client']);
        const error = await refusal(kit.container.get(Grants).list({ handle: 'nobody' }));
        expect([error.code, error.message]).to.deep.equal(['not_found', 'no user with handle "nobody"']);
      });

      it('revoking an unknown grant is not found', async () => {
        expect((await refusal(kit.container.get(Grants).revoke('not-a-uuid'))).code).to.equal('not_found');
        expect((await refusal(kit.container.get(Grants).revoke('00000000-0000-4000-8000-000000000000'))).code).to.equal('not_found');
      });

      it('a user can revoke their own grants and no one else\'s', async () => {
        const minted = await mintAccessToken(kit.container, { userId });
        const mallory = await aUser(kit.accounts, { handle: 'mallory', email: 'm@example.com' });
        expect((await refusal(kit.container.get(Grants).revokeOwn(mallory.id, minted.grantId))).code).to.equal('not_found');
        expect((await kit.container.get(Grants).revokeOwn(userId, minted.grantId)).revokedReason).to.equal('revoked by the user');
      });

      it('supports legacy grants without a lock', async () => {
        const minted = await mintAccessToken(kit.container, { userId });
        const grant = (await kit.store.findGrant(minted.grantId))!;
        await kit.store.insertGrant({ ...grant, id: '11111111-1111-4111-8111-111111111111', lock: { kind: 'legacy' } });
        const [legacy] = (await kit.container.get(Grants).listForUser(userId)).filter((g) => g.lock === 'legacy');
        expect(legacy).to.include({ id: '11111111-1111-4111-8111-111111111111', workspace: null });
      });
    });

    describe('registration and verification', () => {
      it('limits registrations to 30 per minute per client address', async () => {
        const register = kit.container.get(RegisterClient);
        const body = { redirect_uris: [TEST_REDIRECT_URI] };
        for (let i = 0; i < 30; i++) await register.execute(body, '192.0.2.7');
        const error = await refusal(register.execute(body, '192.0.2.7'));
        expect([error.code, error.message]).to.deep.equal(['rate_limited', 'too many client registrations, please retry shortly']);
        expect((await register.execute(body, '192.0.2.8')).client_id).to.be.a('string');
        kit.clock.advance(60);
        expect((await register.execute(body, '192.0.2.7')).client_id).to.be.a('string');
      });

      it('answers the registration with the accepted metadata', async () => {
        const client = await kit.container.get(RegisterClient).execute({ client_name: 'Claude', redirect_uris: [TEST_REDIRECT_URI] }, '10.0.0.9');
        expect(client).to.deep.include({
          client_name: 'Claude',
          redirect_uris: [TEST_REDIRECT_URI],
          grant_types: ['authorization_code', 'refresh_token'],
          response_types: ['code'],
          token_endpoint_auth_method: 'none',
        });
      });

      it('verifies nothing but live access tokens', async () => {
        const minted = await mintAccessToken(kit.container, { userId });
        for (const token of ['', 'garbage', minted.refresh_token, `${minted.access_token}x`, minted.access_token.toUpperCase()]) {
          expect(await verifier().verify(token), token).to.equal(null);
        }
      });
    });
  });
}
