export type Plan = 'free' | 'pro';
export type WorkspaceRole = 'admin' | 'member';

export interface UserRecord {
  id: string;
  handle: string;
  email: string;
  passwordHash: string | null;
  plan: Plan;
  createdAt: Date;
}

export interface WorkspaceRecord {
  id: string;
  slug: string;
  name: string;
  createdAt: Date;
}

export interface MembershipRecord {
  workspaceId: string;
  userId: string;
  role: WorkspaceRole;
}

export type SubdomainOwner = { kind: 'user'; user: UserRecord } | { kind: 'workspace'; workspace: WorkspaceRecord };

export const AccountStore = Symbol.for('AccountStore');
/**
 * Users, workspaces and memberships. Handles and workspace slugs share one namespace (both are subdomains):
 * createUser and createWorkspace throw DomainError('conflict') when the name is taken by either.
 */
export interface AccountStore {
  createUser(input: { handle: string; email: string; passwordHash: string | null; plan: Plan }): Promise<UserRecord>;
  findUserById(id: string): Promise<UserRecord | null>;
  findUserByHandle(handle: string): Promise<UserRecord | null>;
  findUserByEmail(email: string): Promise<UserRecord | null>;
  listUsers(): Promise<UserRecord[]>;
  setPlan(userId: string, plan: Plan): Promise<void>;
  createWorkspace(input: { slug: string; name: string }): Promise<WorkspaceRecord>;
  findWorkspaceById(id: string): Promise<WorkspaceRecord | null>;
  findWorkspaceBySlug(slug: string): Promise<WorkspaceRecord | null>;
  listWorkspaces(): Promise<WorkspaceRecord[]>;
  /** Adds or updates a membership. */
  addMember(workspaceId: string, userId: string, role: WorkspaceRole): Promise<MembershipRecord>;
  findMembership(workspaceId: string, userId: string): Promise<MembershipRecord | null>;
  listMemberships(userId: string): Promise<Array<{ workspace: WorkspaceRecord; role: WorkspaceRole }>>;
  /** Who a dashboards-host subdomain belongs to. */
  findSubdomainOwner(name: string): Promise<SubdomainOwner | null>;
}
