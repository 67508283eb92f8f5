import { inject, injectable } from 'inversify';
import { invalid, DomainError } from '../../domain/errors.js';
import { validateHandle } from '../../domain/names.js';
import { AccountStore, type Plan, type UserRecord, type WorkspaceRecord, type WorkspaceRole } from '../ports/account-store.js';
import { PasswordHasher } from '../ports/password-hasher.js';

export const MIN_PASSWORD_LENGTH = 10;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function parsePlan(value: unknown): Plan {
  if (value !== 'free' && value !== 'pro') throw invalid(`plan must be "free" or "pro" (got "${String(value)}")`);
  return value;
}

export function parseRole(value: unknown): WorkspaceRole {
  if (value !== 'admin' && value !== 'member') throw invalid(`role must be "admin" or "member" (got "${String(value)}")`);
  return value;
}

export function parseEmail(value: unknown): string {
  if (typeof value !== 'string' || !EMAIL.test(value.trim())) throw invalid(`email "${String(value)}" is not a valid email address`);
  return value.trim().toLowerCase();
}

export function checkPassword(password: string): string {
  if (password.length < MIN_PASSWORD_LENGTH) throw invalid(`password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  return password;
}

export type PublicUser = Omit<UserRecord, 'passwordHash'> & { hasPassword: boolean };
export const publicUser = ({ passwordHash, ...rest }: UserRecord): PublicUser => ({ ...rest, hasPassword: passwordHash !== null });

/** Operator actions on accounts (the CLI's user and workspace commands; sign-up reuses addUser). */
@injectable()
export class AdminAccounts {
  constructor(
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(PasswordHasher) private readonly hasher: PasswordHasher,
  ) {}

  async addUser(input: { handle: unknown; email: unknown; plan?: unknown; password?: string | null }): Promise<PublicUser> {
    const handle = validateHandle(input.handle);
    const email = parseEmail(input.email);
    const plan = parsePlan(input.plan ?? 'free');
    const passwordHash = input.password ? await this.hasher.hash(checkPassword(input.password)) : null;
    return publicUser(await this.accounts.createUser({ handle, email, plan, passwordHash }));
  }

  async listUsers(): Promise<PublicUser[]> {
    return (await this.accounts.listUsers()).map(publicUser);
  }

  async setPlan(handle: string, plan: unknown): Promise<PublicUser> {
    const user = await this.userByHandle(handle);
    await this.accounts.setPlan(user.id, parsePlan(plan));
    return publicUser({ ...user, plan: parsePlan(plan) });
  }

  async addWorkspace(input: { slug: unknown; name: unknown }): Promise<WorkspaceRecord> {
    const slug = validateHandle(input.slug, 'workspace slug');
    if (typeof input.name !== 'string' || input.name.trim() === '') throw invalid('workspace name must be a non-empty string');
    return this.accounts.createWorkspace({ slug, name: input.name.trim() });
  }

  async addMember(input: { workspace: string; handle: string; role?: unknown }) {
    const workspace = await this.accounts.findWorkspaceBySlug(input.workspace);
    if (!workspace) throw new DomainError('not_found', `workspace "${input.workspace}" not found`);
    const user = await this.userByHandle(input.handle);
    const membership = await this.accounts.addMember(workspace.id, user.id, parseRole(input.role ?? 'member'));
    return { workspace: workspace.slug, user: user.handle, role: membership.role };
  }

  async listWorkspaces() {
    return this.accounts.listWorkspaces();
  }

  async userByHandle(handle: string): Promise<UserRecord> {
    const user = await this.accounts.findUserByHandle(handle);
    if (!user) throw new DomainError('not_found', `no user with handle "${handle}"`);
    return user;
  }
}
