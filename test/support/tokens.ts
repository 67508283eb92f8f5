import { randomUUID } from 'node:crypto';
import type { Container } from 'inversify';
import { StartAuthorization } from '../../application/auth/authorize.js';
import { Consent, PERSONAL_TARGET, workspaceTarget } from '../../application/auth/consent.js';
import { ExchangeToken } from '../../application/auth/exchange-token.js';
import { RegisterClient } from '../../application/auth/register-client.js';
import type { TokenResponse } from '../../application/auth/token-issuer.js';
import { TokenVerifier } from '../../application/ports/token-verifier.js';
import { pkcePair } from './oauth-kit.js';

export const TEST_REDIRECT_URI = 'http://127.0.0.1:53682/callback';

export type MintLock = { kind: 'personal' } | { kind: 'workspace'; workspaceId: string };

export interface AuthorizedClient {
  clientId: string;
  redirectUri: string;
  verifier: string;
  /** The stored request's handle, as the consent screen's `request` parameter carries it. */
  requestHandle: string;
  state: string;
}

const targetOf = (lock: MintLock) => (lock.kind === 'personal' ? PERSONAL_TARGET : workspaceTarget(lock.workspaceId));

/** Registers a client and starts an authorization, up to the consent screen (no browser). */
export async function startAuthorization(container: Container, options: { clientName?: string; redirectUri?: string } = {}): Promise<AuthorizedClient> {
  const redirectUri = options.redirectUri ?? TEST_REDIRECT_URI;
  // A key of its own per call, so helpers never run into the registration rate limit meant for real clients.
  const client = await container
    .get(RegisterClient)
    .execute({ client_name: options.clientName ?? 'Test client', redirect_uris: [redirectUri] }, `test-support-${randomUUID()}`);
  const { verifier, challenge } = pkcePair();
  const state = randomUUID();
  const outcome = await container.get(StartAuthorization).execute({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: redirectUri,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
  });
  if (outcome.kind !== 'consent') throw new Error(`authorization did not reach the consent screen: ${JSON.stringify(outcome)}`);
  const requestHandle = new URL(outcome.location).searchParams.get('request')!;
  return { clientId: client.client_id, redirectUri, verifier, requestHandle, state };
}

/** Approves a started authorization for the user and answers the code the client would receive. */
export async function approve(container: Container, started: AuthorizedClient, userId: string, lock: MintLock = { kind: 'personal' }): Promise<string> {
  const { location } = await container.get(Consent).approve({ requestHandle: started.requestHandle, userId, target: targetOf(lock) });
  const code = new URL(location).searchParams.get('code');
  if (!code) throw new Error(`approval answered no code: ${location}`);
  return code;
}

export function redeem(container: Container, started: AuthorizedClient, code: string): Promise<TokenResponse> {
  return container.get(ExchangeToken).execute({
    grant_type: 'authorization_code',
    code,
    code_verifier: started.verifier,
    redirect_uri: started.redirectUri,
    client_id: started.clientId,
  });
}

/**
 * A grant and its tokens for a user, minted through the real use cases (register, authorize, consent,
 * token exchange) without a browser: what MCP tests use to call tools under a given lock.
 */
export async function mintAccessToken(
  container: Container,
  options: { userId: string; lock?: MintLock; clientName?: string },
): Promise<TokenResponse & { clientId: string; grantId: string }> {
  const started = await startAuthorization(container, { clientName: options.clientName });
  const code = await approve(container, started, options.userId, options.lock ?? { kind: 'personal' });
  const tokens = await redeem(container, started, code);
  const principal = await container.get<TokenVerifier>(TokenVerifier).verify(tokens.access_token);
  return { ...tokens, clientId: started.clientId, grantId: principal!.grantId };
}
