import { inject, injectable } from 'inversify';
import { DataSource, LessThanOrEqual, type EntityManager, type ObjectLiteral, type Repository, type EntityTarget } from 'typeorm';
import type {
  AccessTokenRecord,
  AuthorizationCodeRecord,
  AuthorizationRequestRecord,
  GrantRecord,
  OAuthClientRecord,
  OAuthData,
  OAuthStore,
  WebSessionRecord,
} from '../../application/ports/oauth-store.js';
import { isClientIdUrl } from '../../domain/client-metadata.js';
import { isUuid } from '../../domain/ids.js';
import type { RefreshChain } from '../../domain/oauth.js';
import type { GrantLock } from '../../domain/scope.js';
import {
  OAuthAccessTokenEntity,
  OAuthAuthorizationRequestEntity,
  OAuthClientEntity,
  OAuthCodeEntity,
  OAuthGrantEntity,
  OAuthRefreshTokenEntity,
  WebSessionEntity,
} from './entities/oauth-entities.js';

function toGrant(row: OAuthGrantEntity): GrantRecord {
  const lock: GrantLock =
    row.lockKind === 'workspace'
      ? { kind: 'workspace', workspaceId: row.lockWorkspaceId!, workspaceSlug: row.lockWorkspaceSlug! }
      : { kind: row.lockKind };
  return {
    id: row.id,
    userId: row.userId,
    clientId: row.clientId,
    lock,
    scope: row.scope,
    resource: row.resource,
    createdAt: row.createdAt,
    sessionExpiresAt: row.sessionExpiresAt,
    revokedAt: row.revokedAt,
    revokedReason: row.revokedReason,
    refresh: {
      currentHash: row.refreshCurrentHash,
      previousHash: row.refreshPreviousHash,
      previousRetryLeft: row.refreshPreviousRetryLeft,
      rotatedAt: row.refreshRotatedAt,
      rotationRequest: row.refreshRotationRequest,
    },
  };
}

function fromGrant(grant: GrantRecord): OAuthGrantEntity {
  return {
    id: grant.id,
    userId: grant.userId,
    clientId: grant.clientId,
    lockKind: grant.lock.kind,
    lockWorkspaceId: grant.lock.kind === 'workspace' ? grant.lock.workspaceId : null,
    lockWorkspaceSlug: grant.lock.kind === 'workspace' ? grant.lock.workspaceSlug : null,
    scope: grant.scope,
    resource: grant.resource,
    createdAt: grant.createdAt,
    sessionExpiresAt: grant.sessionExpiresAt,
    revokedAt: grant.revokedAt,
    revokedReason: grant.revokedReason,
    refreshCurrentHash: grant.refresh.currentHash,
    refreshPreviousHash: grant.refresh.previousHash,
    refreshPreviousRetryLeft: grant.refresh.previousRetryLeft,
    refreshRotatedAt: grant.refresh.rotatedAt,
    refreshRotationRequest: grant.refresh.rotationRequest,
  };
}

interface AccessTokenRow {
  token_hash: string;
  grant_id: string;
  token_created_at: Date;
  token_expires_at: Date;
  user_id: string;
  client_id: string;
  lock_kind: OAuthGrantEntity['lockKind'];
  lock_workspace_id: string | null;
  lock_workspace_slug: string | null;
  scope: string;
  resource: string;
  grant_created_at: Date;
  session_expires_at: Date;
  revoked_at: Date | null;
  revoked_reason: string | null;
  refresh_current_hash: string | null;
  refresh_previous_hash: string | null;
  refresh_previous_retry_left: boolean;
  refresh_rotated_at: Date | null;
  refresh_rotation_request: string | null;
  handle: string;
}

const ACCESS_TOKEN_QUERY = `
  SELECT t.token_hash, t.grant_id, t.created_at AS token_created_at, t.expires_at AS token_expires_at,
         g.user_id, g.client_id, g.lock_kind, g.lock_workspace_id, g.lock_workspace_slug, g.scope, g.resource,
         g.created_at AS grant_created_at, g.session_expires_at, g.revoked_at, g.revoked_reason,
         g.refresh_current_hash, g.refresh_previous_hash, g.refresh_previous_retry_left,
         g.refresh_rotated_at, g.refresh_rotation_request, u.handle
    FROM oauth_access_tokens t
    JOIN oauth_grants g ON g.id = t.grant_id
    JOIN users u ON u.id = g.user_id
   WHERE t.token_hash = $1`;

const plain = <T extends object>(row: T | null): T | null => (row ? { ...row } : null);

/** The operations on one EntityManager: the DataSource's, or a transaction's (which then locks rows it reads for change). */
class TypeormOAuthData implements OAuthData {
  constructor(
    protected readonly manager: EntityManager,
    private readonly inTransaction: boolean,
  ) {}

  private repo<T extends ObjectLiteral>(entity: EntityTarget<T>): Repository<T> {
    return this.manager.getRepository(entity);
  }

  /** One row by primary key; `FOR UPDATE` inside a transaction. */
  private async one<T extends ObjectLiteral>(entity: EntityTarget<T>, column: string, value: string): Promise<T | null> {
    const query = this.repo(entity).createQueryBuilder('row').where(`row.${column} = :value`, { value });
    if (this.inTransaction) query.setLock('pessimistic_write');
    return query.getOne();
  }

  async insertClient(client: OAuthClientRecord): Promise<void> {
    await this.repo(OAuthClientEntity).insert({ ...client, metadataExpiresAt: client.metadataExpiresAt ?? null });
  }

  async findClient(id: string): Promise<OAuthClientRecord | null> {
    if (!isUuid(id) && !isClientIdUrl(id)) return null;
    const row = await this.repo(OAuthClientEntity).findOneBy({ id });
    if (!row) return null;
    // A registered client's record has no expiry at all, as it was inserted.
    const { metadataExpiresAt, ...client } = row;
    return metadataExpiresAt ? { ...client, metadataExpiresAt } : client;
  }

  async saveClient(client: OAuthClientRecord): Promise<void> {
    await this.repo(OAuthClientEntity).upsert({ ...client, metadataExpiresAt: client.metadataExpiresAt ?? null }, ['id']);
  }

  async insertAuthorizationRequest(request: AuthorizationRequestRecord): Promise<void> {
    await this.repo(OAuthAuthorizationRequestEntity).insert(request);
  }

  async findAuthorizationRequest(handleHash: string): Promise<AuthorizationRequestRecord | null> {
    return plain(await this.one(OAuthAuthorizationRequestEntity, 'handleHash', handleHash));
  }

  async deleteAuthorizationRequest(handleHash: string): Promise<boolean> {
    return ((await this.repo(OAuthAuthorizationRequestEntity).delete({ handleHash })).affected ?? 0) > 0;
  }

  async insertGrant(grant: GrantRecord): Promise<void> {
    await this.repo(OAuthGrantEntity).insert(fromGrant(grant));
  }

  async findGrant(id: string): Promise<GrantRecord | null> {
    if (!isUuid(id)) return null;
    const row = await this.one(OAuthGrantEntity, 'id', id);
    return row ? toGrant(row) : null;
  }

  async listGrants(filter: { userId?: string }): Promise<GrantRecord[]> {
    if (filter.userId !== undefined && !isUuid(filter.userId)) return [];
    const rows = await this.repo(OAuthGrantEntity).find({
      where: filter.userId !== undefined ? { userId: filter.userId } : {},
      order: { createdAt: 'DESC', id: 'ASC' },
    });
    return rows.map(toGrant);
  }

  async updateRefreshChain(grantId: string, chain: RefreshChain): Promise<void> {
    await this.repo(OAuthGrantEntity).update(
      { id: grantId },
      {
        refreshCurrentHash: chain.currentHash,
        refreshPreviousHash: chain.previousHash,
        refreshPreviousRetryLeft: chain.previousRetryLeft,
        refreshRotatedAt: chain.rotatedAt,
        refreshRotationRequest: chain.rotationRequest,
      },
    );
  }

  async revokeGrant(grantId: string, at: Date, reason: string): Promise<boolean> {
    if (!isUuid(grantId)) return false;
    const result = await this.repo(OAuthGrantEntity)
      .createQueryBuilder()
      .update()
      .set({ revokedAt: at, revokedReason: reason })
      .where('id = :grantId AND revoked_at IS NULL', { grantId })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  async insertCode(code: AuthorizationCodeRecord): Promise<void> {
    await this.repo(OAuthCodeEntity).insert(code);
  }

  async findCode(codeHash: string): Promise<AuthorizationCodeRecord | null> {
    return plain(await this.one(OAuthCodeEntity, 'codeHash', codeHash));
  }

  async markCodeUsed(codeHash: string, at: Date): Promise<boolean> {
    const result = await this.repo(OAuthCodeEntity)
      .createQueryBuilder()
      .update()
      .set({ usedAt: at })
      .where('code_hash = :codeHash AND used_at IS NULL', { codeHash })
      .execute();
    return (result.affected ?? 0) > 0;
  }

  async insertAccessToken(token: AccessTokenRecord): Promise<void> {
    await this.repo(OAuthAccessTokenEntity).insert(token);
  }

  /** Plain SQL (the query builder costs more than the query here): token, grant and the user's handle in one statement. */
  async findAccessToken(tokenHash: string): Promise<{ token: AccessTokenRecord; grant: GrantRecord } | null> {
    const found = await this.findAccessTokenForUse(tokenHash);
    return found && { token: found.token, grant: found.grant };
  }

  async findAccessTokenForUse(tokenHash: string): Promise<{ token: AccessTokenRecord; grant: GrantRecord; handle: string } | null> {
    const rows: AccessTokenRow[] = await this.manager.query(ACCESS_TOKEN_QUERY, [tokenHash]);
    const row = rows[0];
    if (!row) return null;
    const grant = toGrant({
      id: row.grant_id,
      userId: row.user_id,
      clientId: row.client_id,
      lockKind: row.lock_kind,
      lockWorkspaceId: row.lock_workspace_id,
      lockWorkspaceSlug: row.lock_workspace_slug,
      scope: row.scope,
      resource: row.resource,
      createdAt: row.grant_created_at,
      sessionExpiresAt: row.session_expires_at,
      revokedAt: row.revoked_at,
      revokedReason: row.revoked_reason,
      refreshCurrentHash: row.refresh_current_hash,
      refreshPreviousHash: row.refresh_previous_hash,
      refreshPreviousRetryLeft: row.refresh_previous_retry_left,
      refreshRotatedAt: row.refresh_rotated_at,
      refreshRotationRequest: row.refresh_rotation_request,
    });
    const token: AccessTokenRecord = { tokenHash: row.token_hash, grantId: row.grant_id, createdAt: row.token_created_at, expiresAt: row.token_expires_at };
    return { token, grant, handle: row.handle };
  }

  async insertRefreshToken(token: { tokenHash: string; grantId: string; createdAt: Date }): Promise<void> {
    await this.repo(OAuthRefreshTokenEntity).insert(token);
  }

  async findRefreshTokenGrant(tokenHash: string): Promise<string | null> {
    return (await this.repo(OAuthRefreshTokenEntity).findOneBy({ tokenHash }))?.grantId ?? null;
  }

  async insertWebSession(session: WebSessionRecord): Promise<void> {
    await this.repo(WebSessionEntity).insert(session);
  }

  async findWebSession(tokenHash: string): Promise<WebSessionRecord | null> {
    return plain(await this.repo(WebSessionEntity).findOneBy({ tokenHash }));
  }

  async deleteWebSession(tokenHash: string): Promise<void> {
    await this.repo(WebSessionEntity).delete({ tokenHash });
  }

  async purgeExpired(now: Date): Promise<void> {
    const expired = { expiresAt: LessThanOrEqual(now) };
    await this.repo(OAuthAuthorizationRequestEntity).delete(expired);
    await this.repo(OAuthCodeEntity).delete(expired);
    await this.repo(OAuthAccessTokenEntity).delete(expired);
    await this.repo(WebSessionEntity).delete(expired);
  }
}

/** OAuthStore on PostgreSQL through TypeORM (tables of the 1700000001000-oauth migration). */
@injectable()
export class TypeormOAuthStore extends TypeormOAuthData implements OAuthStore {
  constructor(@inject(DataSource) private readonly dataSource: DataSource) {
    super(dataSource.manager, false);
  }

  transaction<T>(work: (tx: OAuthData) => Promise<T>): Promise<T> {
    return this.dataSource.transaction((manager) => work(new TypeormOAuthData(manager, true)));
  }
}
