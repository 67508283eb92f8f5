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

/** A sign-in at an upstream OpenID Connect provider: its issuer and the provider's stable id of the person. */
export interface LinkedIdentity {
  issuer: string;
  subject: string;
}

export type SubdomainOwner = { kind: 'user'; user: UserRecord } | { kind: 'workspace'; workspace: WorkspaceRecord };

export const AccountStore = Symbol.for('AccountStore');
/**
 * Users, workspaces and memberships. Handles and workspace slugs share one namespace (both are subdomains):
 * createUser and createWorkspace throw DomainError('conflict') when the name is taken by either.
 */
export interface AccountStore {
  /** With `identity`, the user is created already linked to it, in one step (no half-made account). */
  createUser(input: { handle: string; email: string; passwordHash: string | null; plan: Plan; identity?: LinkedIdentity }): Promise<UserRecord>;
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
  /** A workspace's members in handle order. */
  listMembers(workspaceId: string): Promise<Array<{ user: UserRecord; role: WorkspaceRole }>>;
  /** Who a dashboards-host subdomain belongs to. */
  findSubdomainOwner(name: string): Promise<SubdomainOwner | null>;
  /** The user an upstream sign-in is linked to, or null. */
  findUserByIdentity(issuer: string, subject: string): Promise<UserRecord | null>;
  /**
   * Links an upstream sign-in to a user (a user may have several). Linking the same pair to the same
   * user again changes nothing; DomainError('conflict') when it belongs to another user,
   * DomainError('not_found') for an unknown user.
   */
  linkIdentity(identity: LinkedIdentity, userId: string): Promise<void>;
  /** The upstream sign-ins linked to a user, oldest first. */
  identitiesOf(userId: string): Promise<LinkedIdentity[]>;
}
