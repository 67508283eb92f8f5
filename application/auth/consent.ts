import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { DomainError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import { clientIdHost } from '../../domain/client-metadata.js';
import { isLoopbackRedirect } from '../../domain/oauth-clients.js';
import {
  addSeconds,
  AUTHORIZATION_CODE_TTL_SECONDS,
  DECLINED_DESCRIPTION,
  EMPTY_REFRESH_CHAIN,
  GRANT_SESSION_SECONDS,
  SCOPES,
} from '../../domain/oauth.js';
import type { GrantLock } from '../../domain/scope.js';
import { AccountStore } from '../ports/account-store.js';
import { Clock } from '../ports/clock.js';
import { OAuthStore, type AuthorizationRequestRecord, type OAuthData } from '../ports/oauth-store.js';
import { SecretTokens } from '../ports/secret-tokens.js';
import { Settings } from '../ports/settings.js';
import { oauthUrls, withQuery } from './endpoints.js';

/** The consent screen's target choice: the personal account, or a workspace by id. */
export const PERSONAL_TARGET = 'personal';
export const workspaceTarget = (workspaceId: string) => `workspace:${workspaceId}`;

export interface ConsentTarget {
  value: string;
  kind: 'personal' | 'workspace';
  label: string;
  /** The handle or workspace slug: the subdomain the target's dashboards live on. */
  name: string;
}

/** Everything the consent screen shows about one stored request. */
export interface ConsentView {
  clientId: string;
  /** The name the client registered; null when it gave none. */
  clientName: string | null;
  /**
   * For a client ID metadata document: the host of its URL, the one thing about the client its own
   * document cannot make up. Null for a registered client.
   */
  clientHost: string | null;
  redirectUri: string;
  /** False for a redirect to another machine: the screen says so before approval. */
  loopbackRedirect: boolean;
  requestedScope: string | null;
  scope: string;
  scopeDescription: string;
  expiresAt: Date;
  /** Present when a user is signed in: who would authorize, and onto what. */
  user: { handle: string; email: string; targets: ConsentTarget[] } | null;
}

export const requestExpired = () =>
  new DomainError('not_found', 'This authorization request has expired or was already answered. Start the connection again from your client.');

/**
 * The consent screen's decisions. Approval verifies the user and the target, mints the grant (with
 * its lock and its own session) and a code, and only then consumes the stored request, all in one
 * transaction: a failure anywhere leaves the request in place, so confirming again is safe.
 */
@injectable()
export class Consent {
  constructor(
    @inject(OAuthStore) private readonly store: OAuthStore,
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(SecretTokens) private readonly secrets: SecretTokens,
    @inject(Clock) private readonly clock: Clock,
    @inject(Settings) private readonly settings: Settings,
  ) {}

  async describe(requestHandle: string, userId: string | null): Promise<ConsentView> {
    const request = await this.pending(this.store, requestHandle);
    const client = await this.store.findClient(request.clientId);
    if (!client) throw requestExpired();
    let user: ConsentView['user'] = null;
    const account = userId ? await this.accounts.findUserById(userId) : null;
    if (account) {
      const memberships = await this.accounts.listMemberships(account.id);
      const targets: ConsentTarget[] = [
        { value: PERSONAL_TARGET, kind: 'personal', label: 'Personal account', name: account.handle },
        ...memberships.map(({ workspace }) => ({
          value: workspaceTarget(workspace.id),
          kind: 'workspace' as const,
          label: workspace.name,
          name: workspace.slug,
        })),
      ];
      user = { handle: account.handle, email: account.email, targets };
    }
    return {
      clientId: client.id,
      clientName: client.name,
      clientHost: clientIdHost(client.id),
      redirectUri: request.redirectUri,
      loopbackRedirect: isLoopbackRedirect(request.redirectUri),
      requestedScope: request.requestedScope,
      scope: request.scope,
      scopeDescription: SCOPES[request.scope] ?? request.scope,
      expiresAt: request.expiresAt,
      user,
    };
  }

  /** Allow access: answers where to send the browser (the client's redirect URI with the code). */
  async approve(input: { requestHandle: string; userId: string; target: unknown }): Promise<{ location: string }> {
    // The user and membership are read before the transaction opens: the account store is another
    // session, and the embedded database serves one session at a time, so reading it inside would wait
    // for this very transaction to end.
    const lock = await this.lockFor(input.userId, input.target);
    return this.store.transaction(async (tx) => {
      const now = this.clock.now();
      const request = await this.pending(tx, input.requestHandle);
      const grantId = randomUUID();
      await tx.insertGrant({
        id: grantId,
        userId: input.userId,
        clientId: request.clientId,
        lock,
        scope: request.scope,
        resource: request.resource,
        createdAt: now,
        sessionExpiresAt: addSeconds(now, GRANT_SESSION_SECONDS),
        revokedAt: null,
        revokedReason: null,
        refresh: EMPTY_REFRESH_CHAIN,
      });
      const code = this.secrets.generate();
      await tx.insertCode({
        codeHash: this.secrets.digest(code),
        grantId,
        clientId: request.clientId,
        redirectUri: request.redirectUri,
        codeChallenge: request.codeChallenge,
        resource: request.resource,
        expiresAt: addSeconds(now, AUTHORIZATION_CODE_TTL_SECONDS),
        usedAt: null,
      });
      // Last: a concurrent approval that got here first leaves nothing behind for this one.
      if (!(await tx.deleteAuthorizationRequest(this.secrets.digest(input.requestHandle)))) throw requestExpired();
      return { location: this.answer(request, { code }) };
    });
  }

  /** Cancel: the client hears `access_denied`, and the request is gone. */
  async deny(input: { requestHandle: string }): Promise<{ location: string }> {
    return this.store.transaction(async (tx) => {
      const request = await this.pending(tx, input.requestHandle);
      if (!(await tx.deleteAuthorizationRequest(this.secrets.digest(input.requestHandle)))) throw requestExpired();
      return { location: this.answer(request, { error: 'access_denied', error_description: DECLINED_DESCRIPTION }) };
    });
  }

  private answer(request: AuthorizationRequestRecord, params: Record<string, string>): string {
    return withQuery(request.redirectUri, { ...params, state: request.state, iss: oauthUrls(this.settings).issuer });
  }

  private async pending(data: OAuthData, requestHandle: string): Promise<AuthorizationRequestRecord> {
    if (typeof requestHandle !== 'string' || requestHandle === '') throw requestExpired();
    const request = await data.findAuthorizationRequest(this.secrets.digest(requestHandle));
    if (!request || request.expiresAt <= this.clock.now()) throw requestExpired();
    return request;
  }

  /** The lock the chosen target becomes; a workspace needs the user's membership right now. */
  private async lockFor(userId: string, target: unknown): Promise<GrantLock> {
    const user = await this.accounts.findUserById(userId);
    if (!user) throw new DomainError('unauthenticated', 'Sign in to authorize this client.');
    if (target === PERSONAL_TARGET || target === undefined || target === null || target === '') return { kind: 'personal' };
    const workspaceId = typeof target === 'string' && target.startsWith('workspace:') ? target.slice('workspace:'.length) : null;
    const workspace = isUuid(workspaceId) ? await this.accounts.findWorkspaceById(workspaceId) : null;
    const membership = workspace ? await this.accounts.findMembership(workspace.id, user.id) : null;
    if (!workspace || !membership) throw new DomainError('forbidden', 'You are not a member of the chosen workspace.');
    return { kind: 'workspace', workspaceId: workspace.id, workspaceSlug: workspace.slug };
  }
}
