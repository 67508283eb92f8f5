import { inject, injectable } from 'inversify';
import { DomainError, invalid } from '../../domain/errors.js';
import { SIGN_IN_ATTEMPTS, SIGN_UPS } from '../../domain/oauth.js';
import { AdminAccounts, publicUser, type PublicUser } from '../accounts/admin-accounts.js';
import { AccountStore, type WorkspaceRole } from '../ports/account-store.js';
import { PasswordHasher } from '../ports/password-hasher.js';
import { RateLimiter } from '../ports/rate-limiter.js';
import { Settings } from '../ports/settings.js';
import { WebSessionService } from './web-session-service.js';

export const badCredentials = () => new DomainError('unauthenticated', 'The email or password is not correct.');
export const tooManySignIns = () =>
  new DomainError('rate_limited', 'Too many sign-in attempts. Wait a few minutes and try again.');

export interface SignedIn {
  user: PublicUser;
  session: { token: string; expiresAt: Date };
}

export interface AccountOverview {
  user: PublicUser;
  workspaces: Array<{ slug: string; name: string; role: WorkspaceRole }>;
}

/** Sign-up and password sign-in on the web app; both end in a new web session. */
@injectable()
export class WebAccounts {
  /** A real hash to check against when the email is unknown, so both cases take the same time. */
  private decoy: Promise<string> | null = null;

  constructor(
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(AdminAccounts) private readonly admin: AdminAccounts,
    @inject(PasswordHasher) private readonly hasher: PasswordHasher,
    @inject(RateLimiter) private readonly limiter: RateLimiter,
    @inject(WebSessionService) private readonly sessions: WebSessionService,
    @inject(Settings) private readonly settings: Settings,
  ) {}

  get signUpOpen(): boolean {
    return this.settings.allowSignup;
  }

  async signUp(input: { handle: unknown; email: unknown; password: unknown; clientIp: string }): Promise<SignedIn> {
    if (!this.settings.allowSignup) throw new DomainError('forbidden', 'Sign-up is closed on this service. Ask its operator for an account.');
    if (!(await this.limiter.consume('sign-up', input.clientIp, SIGN_UPS.points, SIGN_UPS.windowSeconds))) {
      throw new DomainError('rate_limited', 'Too many sign-ups from this address. Wait a while and try again.');
    }
    if (typeof input.password !== 'string' || input.password === '') throw invalid('password must not be empty');
    const user = await this.admin.addUser({ handle: input.handle, email: input.email, plan: 'free', password: input.password });
    return { user, session: await this.sessions.start(user.id) };
  }

  async signIn(input: { email: unknown; password: unknown; clientIp: string }): Promise<SignedIn> {
    const email = typeof input.email === 'string' ? input.email.trim().toLowerCase() : '';
    const password = typeof input.password === 'string' ? input.password : '';
    if (email === '' || password === '') throw badCredentials();
    const { points, windowSeconds } = SIGN_IN_ATTEMPTS;
    if (!(await this.limiter.consume('sign-in', `${email}|${input.clientIp}`, points, windowSeconds))) throw tooManySignIns();
    const user = await this.accounts.findUserByEmail(email);
    if (!user || user.passwordHash === null) {
      this.decoy ??= this.hasher.hash('decoy password, never matches');
      await this.hasher.verify(password, await this.decoy);
      throw badCredentials();
    }
    if (!(await this.hasher.verify(password, user.passwordHash))) throw badCredentials();
    return { user: publicUser(user), session: await this.sessions.start(user.id) };
  }

  async overview(userId: string): Promise<AccountOverview | null> {
    const user = await this.accounts.findUserById(userId);
    if (!user) return null;
    const memberships = await this.accounts.listMemberships(user.id);
    return {
      user: publicUser(user),
      workspaces: memberships.map(({ workspace, role }) => ({ slug: workspace.slug, name: workspace.name, role })),
    };
  }
}
