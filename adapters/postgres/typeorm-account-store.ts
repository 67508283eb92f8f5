import { randomUUID } from 'node:crypto';
import { inject, injectable } from 'inversify';
import { DataSource, In, QueryFailedError, type EntityManager } from 'typeorm';
import { DomainError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import type {
  AccountStore,
  LinkedIdentity,
  MembershipRecord,
  Plan,
  SubdomainOwner,
  UserRecord,
  WorkspaceRecord,
  WorkspaceRole,
} from '../../application/ports/account-store.js';
import { MembershipEntity } from './entities/account-membership.js';
import { UserEntity } from './entities/account-user.js';
import { AccountIdentityEntity } from './entities/account-identity.js';
import { WorkspaceEntity } from './entities/account-workspace.js';

/** Every change to the subdomain namespace (handles + workspace slugs) takes this one lock. */
const NAMESPACE_LOCK = `SELECT pg_advisory_xact_lock(hashtextextended('dashpub:subdomain-namespace', 0))`;

const toUser = (row: UserEntity): UserRecord => ({
  id: row.id,
  handle: row.handle,
  email: row.email,
  passwordHash: row.passwordHash,
  plan: row.plan,
  createdAt: row.createdAt,
});

const toWorkspace = (row: WorkspaceEntity): WorkspaceRecord => ({ id: row.id, slug: row.slug, name: row.name, createdAt: row.createdAt });

@injectable()
export class TypeormAccountStore implements AccountStore {
  constructor(@inject(DataSource) private readonly dataSource: DataSource) {}

  async createUser(input: { handle: string; email: string; passwordHash: string | null; plan: Plan; identity?: LinkedIdentity }): Promise<UserRecord> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(NAMESPACE_LOCK);
      if (await nameTaken(manager, input.handle)) throw new DomainError('conflict', `handle "${input.handle}" is taken`);
      const emailTaken = await manager
        .getRepository(UserEntity)
        .createQueryBuilder('u')
        .where('lower(u.email) = lower(:email)', { email: input.email })
        .getExists();
      if (emailTaken) throw new DomainError('conflict', `email "${input.email}" is already registered`);
      const user: UserRecord = {
        id: randomUUID(),
        handle: input.handle,
        email: input.email,
        passwordHash: input.passwordHash,
        plan: input.plan,
        createdAt: new Date(),
      };
      await manager.getRepository(UserEntity).insert(user);
      if (input.identity) await insertIdentity(manager, input.identity, user.id);
      return user;
    });
  }

  async findUserById(id: string): Promise<UserRecord | null> {
    if (!isUuid(id)) return null;
    // Plain SQL: every tool call resolves its user, and the query builder costs more than this query.
    const [row] = await this.dataSource.query<Array<Record<string, unknown>>>(
      'SELECT id, handle, email, password_hash, plan, created_at FROM users WHERE id = $1',
      [id],
    );
    return row
      ? {
          id: row.id as string,
          handle: row.handle as string,
          email: row.email as string,
          passwordHash: row.password_hash as string | null,
          plan: row.plan as UserRecord['plan'],
          createdAt: row.created_at as Date,
        }
      : null;
  }

  async findUserByHandle(handle: string): Promise<UserRecord | null> {
    const row = await this.users.findOneBy({ handle });
    return row ? toUser(row) : null;
  }

  async findUserByEmail(email: string): Promise<UserRecord | null> {
    const row = await this.users.createQueryBuilder('u').where('lower(u.email) = lower(:email)', { email }).getOne();
    return row ? toUser(row) : null;
  }

  async listUsers(): Promise<UserRecord[]> {
    return (await this.users.find({ order: { handle: 'ASC' } })).map(toUser);
  }

  async setPlan(userId: string, plan: Plan): Promise<void> {
    if (isUuid(userId)) await this.users.update({ id: userId }, { plan });
  }

  async createWorkspace(input: { slug: string; name: string }): Promise<WorkspaceRecord> {
    return this.dataSource.transaction(async (manager) => {
      await manager.query(NAMESPACE_LOCK);
      if (await nameTaken(manager, input.slug)) throw new DomainError('conflict', `workspace slug "${input.slug}" is taken`);
      const workspace: WorkspaceRecord = { id: randomUUID(), slug: input.slug, name: input.name, createdAt: new Date() };
      await manager.getRepository(WorkspaceEntity).insert(workspace);
      return workspace;
    });
  }

  async findWorkspaceById(id: string): Promise<WorkspaceRecord | null> {
    if (!isUuid(id)) return null;
    const row = await this.workspaces.findOneBy({ id });
    return row ? toWorkspace(row) : null;
  }

  async findWorkspaceBySlug(slug: string): Promise<WorkspaceRecord | null> {
    const row = await this.workspaces.findOneBy({ slug });
    return row ? toWorkspace(row) : null;
  }

  async listWorkspaces(): Promise<WorkspaceRecord[]> {
    return (await this.workspaces.find({ order: { slug: 'ASC' } })).map(toWorkspace);
  }

  async addMember(workspaceId: string, userId: string, role: WorkspaceRole): Promise<MembershipRecord> {
    if (!isUuid(workspaceId)) throw new DomainError('not_found', `workspace ${workspaceId} not found`);
    if (!isUuid(userId)) throw new DomainError('not_found', `user ${userId} not found`);
    try {
      await this.dataSource.query(
        `INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3)
         ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
        [workspaceId, userId, role],
      );
    } catch (error) {
      if (error instanceof QueryFailedError && (error.driverError as { code?: string }).code === '23503') {
        const missing = (error.driverError as { constraint?: string }).constraint?.includes('workspace') ? `workspace ${workspaceId}` : `user ${userId}`;
        throw new DomainError('not_found', `${missing} not found`);
      }
      throw error;
    }
    return { workspaceId, userId, role };
  }

  async findMembership(workspaceId: string, userId: string): Promise<MembershipRecord | null> {
    if (!isUuid(workspaceId) || !isUuid(userId)) return null;
    const row = await this.dataSource.getRepository(MembershipEntity).findOneBy({ workspaceId, userId });
    return row ? { workspaceId: row.workspaceId, userId: row.userId, role: row.role } : null;
  }

  async listMemberships(userId: string): Promise<Array<{ workspace: WorkspaceRecord; role: WorkspaceRole }>> {
    if (!isUuid(userId)) return [];
    const rows: Array<{ id: string; slug: string; name: string; created_at: Date; role: WorkspaceRole }> = await this.dataSource.query(
      `SELECT w.id, w.slug, w.name, w.created_at, m.role
         FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
        WHERE m.user_id = $1
        ORDER BY w.slug`,
      [userId],
    );
    return rows.map((r) => ({ workspace: { id: r.id, slug: r.slug, name: r.name, createdAt: r.created_at }, role: r.role }));
  }

  async listMembers(workspaceId: string): Promise<Array<{ user: UserRecord; role: WorkspaceRole }>> {
    if (!isUuid(workspaceId)) return [];
    const rows = await this.dataSource.getRepository(MembershipEntity).findBy({ workspaceId });
    const roles = new Map(rows.map((row) => [row.userId, row.role]));
    if (roles.size === 0) return [];
    const users = await this.users.find({ where: { id: In([...roles.keys()]) }, order: { handle: 'ASC' } });
    return users.map((row) => ({ user: toUser(row), role: roles.get(row.id)! }));
  }

  async findSubdomainOwner(name: string): Promise<SubdomainOwner | null> {
    const user = await this.findUserByHandle(name);
    if (user) return { kind: 'user', user };
    const workspace = await this.findWorkspaceBySlug(name);
    return workspace ? { kind: 'workspace', workspace } : null;
  }

  async findUserByIdentity(issuer: string, subject: string): Promise<UserRecord | null> {
    const link = await this.dataSource.getRepository(AccountIdentityEntity).findOneBy({ issuer, subject });
    return link ? this.findUserById(link.userId) : null;
  }

  async linkIdentity(identity: LinkedIdentity, userId: string): Promise<void> {
    if (!isUuid(userId)) throw new DomainError('not_found', `user ${userId} not found`);
    try {
      await insertIdentity(this.dataSource.manager, identity, userId);
    } catch (error) {
      if (error instanceof QueryFailedError && (error.driverError as { code?: string }).code === '23503') {
        throw new DomainError('not_found', `user ${userId} not found`);
      }
      throw error;
    }
  }

  async identitiesOf(userId: string): Promise<LinkedIdentity[]> {
    if (!isUuid(userId)) return [];
    const rows = await this.dataSource.getRepository(AccountIdentityEntity).find({ where: { userId }, order: { createdAt: 'ASC' } });
    return rows.map(({ issuer, subject }) => ({ issuer, subject }));
  }

  private get users() {
    return this.dataSource.getRepository(UserEntity);
  }

  private get workspaces() {
    return this.dataSource.getRepository(WorkspaceEntity);
  }
}

/**
 * Adds the (issuer, subject) link unless it exists; linking it to the same user again is a no-op, to
 * another user a conflict (the primary key decides, so two concurrent first sign-ins cannot both win).
 */
async function insertIdentity(manager: EntityManager, identity: LinkedIdentity, userId: string): Promise<void> {
  const inserted: unknown[] = await manager.query(
    `INSERT INTO account_identities (issuer, subject, user_id, created_at) VALUES ($1, $2, $3, now())
     ON CONFLICT (issuer, subject) DO NOTHING RETURNING user_id`,
    [identity.issuer, identity.subject, userId],
  );
  if (inserted.length > 0) return;
  // A separate statement, so it sees a link a concurrent transaction committed while this one waited.
  const [existing]: Array<{ user_id: string }> = await manager.query(
    `SELECT user_id FROM account_identities WHERE issuer = $1 AND subject = $2`,
    [identity.issuer, identity.subject],
  );
  if (existing?.user_id !== userId) throw new DomainError('conflict', 'this sign-in is already linked to another account');
}

async function nameTaken(manager: EntityManager, name: string): Promise<boolean> {
  const [row]: Array<{ taken: boolean }> = await manager.query(
    `SELECT EXISTS (SELECT 1 FROM users WHERE handle = $1) OR EXISTS (SELECT 1 FROM workspaces WHERE slug = $1) AS taken`,
    [name],
  );
  return row.taken;
}
