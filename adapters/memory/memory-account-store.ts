import { randomUUID } from 'node:crypto';
import { injectable } from 'inversify';
import { DomainError } from '../../domain/errors.js';
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

const byKey = <T>(key: (item: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

/**
 * Accounts in Maps. Every check-then-insert runs without an await in between, so the single JavaScript
 * thread gives the same uniqueness the database's constraints and namespace lock give.
 */
@injectable()
export class MemoryAccountStore implements AccountStore {
  private readonly users = new Map<string, UserRecord>();
  private readonly workspaces = new Map<string, WorkspaceRecord>();
  private readonly memberships = new Map<string, MembershipRecord>();
  /** `issuer \n subject` → user id (a newline cannot occur in an issuer URL). */
  private readonly identities = new Map<string, string>();

  async createUser(input: { handle: string; email: string; passwordHash: string | null; plan: Plan; identity?: LinkedIdentity }): Promise<UserRecord> {
    if (this.nameTaken(input.handle)) throw new DomainError('conflict', `handle "${input.handle}" is taken`);
    const email = input.email.toLowerCase();
    if ([...this.users.values()].some((u) => u.email.toLowerCase() === email)) {
      throw new DomainError('conflict', `email "${input.email}" is already registered`);
    }
    if (input.identity && this.identities.has(identityKey(input.identity))) throw identityTaken();
    const { handle, passwordHash, plan } = input;
    const user: UserRecord = { id: randomUUID(), handle, email: input.email, passwordHash, plan, createdAt: new Date() };
    this.users.set(user.id, user);
    if (input.identity) this.identities.set(identityKey(input.identity), user.id);
    return structuredClone(user);
  }

  async findUserById(id: string): Promise<UserRecord | null> {
    return copy(this.users.get(id));
  }

  async findUserByHandle(handle: string): Promise<UserRecord | null> {
    return copy(this.userByHandle(handle));
  }

  async findUserByEmail(email: string): Promise<UserRecord | null> {
    const wanted = email.toLowerCase();
    return copy([...this.users.values()].find((u) => u.email.toLowerCase() === wanted));
  }

  async listUsers(): Promise<UserRecord[]> {
    return [...this.users.values()].sort(byKey((u) => u.handle)).map((u) => structuredClone(u));
  }

  async setPlan(userId: string, plan: Plan): Promise<void> {
    const user = this.users.get(userId);
    if (user) user.plan = plan;
  }

  async createWorkspace(input: { slug: string; name: string }): Promise<WorkspaceRecord> {
    if (this.nameTaken(input.slug)) throw new DomainError('conflict', `workspace slug "${input.slug}" is taken`);
    const workspace: WorkspaceRecord = { id: randomUUID(), slug: input.slug, name: input.name, createdAt: new Date() };
    this.workspaces.set(workspace.id, workspace);
    return structuredClone(workspace);
  }

  async findWorkspaceById(id: string): Promise<WorkspaceRecord | null> {
    return copy(this.workspaces.get(id));
  }

  async findWorkspaceBySlug(slug: string): Promise<WorkspaceRecord | null> {
    return copy(this.workspaceBySlug(slug));
  }

  async listWorkspaces(): Promise<WorkspaceRecord[]> {
    return [...this.workspaces.values()].sort(byKey((w) => w.slug)).map((w) => structuredClone(w));
  }

  async addMember(workspaceId: string, userId: string, role: WorkspaceRole): Promise<MembershipRecord> {
    // The same refusal the foreign keys give in the database.
    if (!this.workspaces.has(workspaceId)) throw new DomainError('not_found', `workspace ${workspaceId} not found`);
    if (!this.users.has(userId)) throw new DomainError('not_found', `user ${userId} not found`);
    const membership: MembershipRecord = { workspaceId, userId, role };
    this.memberships.set(`${workspaceId}|${userId}`, membership);
    return structuredClone(membership);
  }

  async findMembership(workspaceId: string, userId: string): Promise<MembershipRecord | null> {
    return copy(this.memberships.get(`${workspaceId}|${userId}`));
  }

  async listMemberships(userId: string): Promise<Array<{ workspace: WorkspaceRecord; role: WorkspaceRole }>> {
    return [...this.memberships.values()]
      .filter((m) => m.userId === userId)
      .map((m) => ({ workspace: structuredClone(this.workspaces.get(m.workspaceId)!), role: m.role }))
      .sort(byKey((entry) => entry.workspace.slug));
  }

  async listMembers(workspaceId: string): Promise<Array<{ user: UserRecord; role: WorkspaceRole }>> {
    return [...this.memberships.values()]
      .filter((m) => m.workspaceId === workspaceId)
      .map((m) => ({ user: structuredClone(this.users.get(m.userId)!), role: m.role }))
      .sort(byKey((entry) => entry.user.handle));
  }

  async findSubdomainOwner(name: string): Promise<SubdomainOwner | null> {
    const user = this.userByHandle(name);
    if (user) return { kind: 'user', user: structuredClone(user) };
    const workspace = this.workspaceBySlug(name);
    return workspace ? { kind: 'workspace', workspace: structuredClone(workspace) } : null;
  }

  async findUserByIdentity(issuer: string, subject: string): Promise<UserRecord | null> {
    const userId = this.identities.get(identityKey({ issuer, subject }));
    return userId ? copy(this.users.get(userId)) : null;
  }

  async identitiesOf(userId: string): Promise<LinkedIdentity[]> {
    // Insertion order is link order, as in the database's created_at.
    return [...this.identities].filter(([, owner]) => owner === userId).map(([key]) => {
      const [issuer, subject] = key.split('\n') as [string, string];
      return { issuer, subject };
    });
  }

  async linkIdentity(identity: LinkedIdentity, userId: string): Promise<void> {
    if (!this.users.has(userId)) throw new DomainError('not_found', `user ${userId} not found`);
    const linked = this.identities.get(identityKey(identity));
    if (linked !== undefined && linked !== userId) throw identityTaken();
    this.identities.set(identityKey(identity), userId);
  }

  private nameTaken(name: string): boolean {
    return this.userByHandle(name) !== undefined || this.workspaceBySlug(name) !== undefined;
  }

  private userByHandle(handle: string): UserRecord | undefined {
    return [...this.users.values()].find((u) => u.handle === handle);
  }

  private workspaceBySlug(slug: string): WorkspaceRecord | undefined {
    return [...this.workspaces.values()].find((w) => w.slug === slug);
  }
}

const identityKey = ({ issuer, subject }: LinkedIdentity) => `${issuer}\n${subject}`;

/** The same refusal the primary key on account_identities gives in the database. */
const identityTaken = () => new DomainError('conflict', 'this sign-in is already linked to another account');

function copy<T extends object>(value: T | undefined): T | null {
  return value ? structuredClone(value) : null;
}
