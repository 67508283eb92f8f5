import { inject, injectable } from 'inversify';
import { DomainError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import { AccountStore } from '../ports/account-store.js';
import { Clock } from '../ports/clock.js';
import { OAuthStore, type GrantRecord } from '../ports/oauth-store.js';

export interface GrantView {
  id: string;
  userId: string;
  user: string | null;
  clientId: string;
  clientName: string | null;
  /** `personal`, `workspace` (see `workspace`) or `legacy` (no lock). */
  lock: GrantRecord['lock']['kind'];
  workspace: string | null;
  scope: string;
  status: 'active' | 'revoked' | 'ended';
  createdAt: Date;
  sessionExpiresAt: Date;
  revokedAt: Date | null;
  revokedReason: string | null;
}

export const grantNotFound = (id: string) => new DomainError('not_found', `no grant with id "${id}"`);

/** Listing and revoking grants: the operator's `grant` commands and the account page's own list. */
@injectable()
export class Grants {
  constructor(
    @inject(OAuthStore) private readonly store: OAuthStore,
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async list(filter: { handle?: string } = {}): Promise<GrantView[]> {
    let userId: string | undefined;
    if (filter.handle !== undefined) {
      const user = await this.accounts.findUserByHandle(filter.handle);
      if (!user) throw new DomainError('not_found', `no user with handle "${filter.handle}"`);
      userId = user.id;
    }
    return this.views(await this.store.listGrants({ userId }));
  }

  async listForUser(userId: string): Promise<GrantView[]> {
    return this.views(await this.store.listGrants({ userId }));
  }

  /** Revokes at once: every access and refresh token of the grant stops working. */
  async revoke(grantId: string, reason = 'revoked by the operator'): Promise<GrantView> {
    const grant = isUuid(grantId) ? await this.store.findGrant(grantId) : null;
    if (!grant) throw grantNotFound(grantId);
    await this.store.revokeGrant(grant.id, this.clock.now(), reason);
    const [view] = await this.views([(await this.store.findGrant(grant.id))!]);
    return view!;
  }

  /** A user revoking one of their own grants; someone else's reads as not found. */
  async revokeOwn(userId: string, grantId: string): Promise<GrantView> {
    const grant = isUuid(grantId) ? await this.store.findGrant(grantId) : null;
    if (!grant || grant.userId !== userId) throw grantNotFound(grantId);
    return this.revoke(grantId, 'revoked by the user');
  }

  private async views(grants: GrantRecord[]): Promise<GrantView[]> {
    const now = this.clock.now();
    const clientNames = new Map<string, string | null>();
    const handles = new Map<string, string | null>();
    for (const grant of grants) {
      if (!clientNames.has(grant.clientId)) clientNames.set(grant.clientId, (await this.store.findClient(grant.clientId))?.name ?? null);
      if (!handles.has(grant.userId)) handles.set(grant.userId, (await this.accounts.findUserById(grant.userId))?.handle ?? null);
    }
    return grants.map((grant) => ({
      id: grant.id,
      userId: grant.userId,
      user: handles.get(grant.userId) ?? null,
      clientId: grant.clientId,
      clientName: clientNames.get(grant.clientId) ?? null,
      lock: grant.lock.kind,
      workspace: grant.lock.kind === 'workspace' ? grant.lock.workspaceSlug : null,
      scope: grant.scope,
      status: grant.revokedAt ? 'revoked' : grant.sessionExpiresAt <= now ? 'ended' : 'active',
      createdAt: grant.createdAt,
      sessionExpiresAt: grant.sessionExpiresAt,
      revokedAt: grant.revokedAt,
      revokedReason: grant.revokedReason,
    }));
  }
}
