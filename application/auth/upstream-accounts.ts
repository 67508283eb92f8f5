import { inject, injectable } from 'inversify';
import { DomainError, isDomainError } from '../../domain/errors.js';
import { handleBaseFrom, handleCandidates } from '../../domain/upstream-sign-in.js';
import { parseEmail } from '../accounts/admin-accounts.js';
import { AccountStore, type LinkedIdentity, type UserRecord } from '../ports/account-store.js';
import type { UpstreamIdentity } from '../ports/identity-provider.js';
import { Settings } from '../ports/settings.js';

/** How an upstream sign-in found its account: an existing link, a verified email, or a new account. */
export type AccountMatch = 'linked' | 'verified_email' | 'signed_up';

export interface UpstreamAccount {
  user: UserRecord;
  match: AccountMatch;
}

/**
 * Maps a verified upstream identity to an account. The link (issuer, subject) decides first. Without
 * one, an account is linked by email only when the provider vouches for the address (email_verified),
 * since anyone can type any address into a provider that does not check it. Even then an account with
 * a password is linked only while its owner is signed in: this service never checks the addresses
 * people sign up with, so someone could have signed up first with another person's address, waiting
 * for that person's upstream sign-in to land in an account whose password they know. Otherwise, when
 * sign-up is open, a new password-less account is made, linked in the same step.
 */
@injectable()
export class UpstreamAccounts {
  constructor(
    @inject(AccountStore) private readonly accounts: AccountStore,
    @inject(Settings) private readonly settings: Settings,
  ) {}

  /** `signedInUserId`: the web session's user when the browser was already signed in, else null. */
  async resolve(identity: UpstreamIdentity, providerName: string, signedInUserId: string | null): Promise<UpstreamAccount> {
    const link: LinkedIdentity = { issuer: identity.issuer, subject: identity.subject };
    const linked = await this.accounts.findUserByIdentity(link.issuer, link.subject);
    if (linked) return { user: linked, match: 'linked' };

    const email = usableEmail(identity, providerName);
    const holder = await this.accounts.findUserByEmail(email);
    if (holder) {
      if (!identity.emailVerified) throw unverifiedEmail(email, providerName);
      if (holder.passwordHash !== null && holder.id !== signedInUserId) throw signInFirstToLink(email, providerName);
      // The account already has its sign-in at this provider: the address now belongs to another of its
      // users (providers reassign addresses), who must not inherit the account. The subject decides.
      if ((await this.accounts.identitiesOf(holder.id)).some((known) => known.issuer === link.issuer)) {
        throw linkedToAnotherSignIn(email, providerName);
      }
      await this.accounts.linkIdentity(link, holder.id);
      return { user: holder, match: 'verified_email' };
    }
    if (!this.settings.allowSignup) throw signUpClosed(providerName);
    // A new account holds the address, and a later verified sign-in with it would be linked to that
    // account: so only an address the provider vouches for may start one.
    if (!identity.emailVerified) throw unverifiedSignUp(email, providerName);
    return this.signUp(identity, link, email);
  }

  /** A new free account named after the provider's username (or the email), the first free handle. */
  private async signUp(identity: UpstreamIdentity, link: LinkedIdentity, email: string): Promise<UpstreamAccount> {
    const base = handleBaseFrom(identity.preferredUsername || email);
    for (const handle of handleCandidates(base)) {
      if (await this.accounts.findSubdomainOwner(handle)) continue;
      try {
        const user = await this.accounts.createUser({ handle, email, passwordHash: null, plan: 'free', identity: link });
        return { user, match: 'signed_up' };
      } catch (error) {
        if (!isDomainError(error) || error.code !== 'conflict') throw error;
        // Lost a race: the same person's first sign-in in another tab, the email, or just the handle.
        const winner = await this.accounts.findUserByIdentity(link.issuer, link.subject);
        if (winner) return { user: winner, match: 'linked' };
        if (await this.accounts.findUserByEmail(email)) throw error;
      }
    }
    throw new DomainError('conflict', `Every handle based on "${base}" is taken. Ask the operator of this service to create your account.`);
  }
}

function usableEmail(identity: UpstreamIdentity, providerName: string): string {
  if (!identity.email) {
    throw new DomainError('invalid_argument', `${providerName} did not share an email address, and this service needs one to find or create your account.`);
  }
  try {
    return parseEmail(identity.email);
  } catch {
    throw new DomainError('invalid_argument', `${providerName} shared an email address this service cannot use: "${identity.email}".`);
  }
}

const unverifiedEmail = (email: string, providerName: string) =>
  new DomainError(
    'forbidden',
    `An account with the email ${email} already exists, but ${providerName} does not confirm that this address is yours, so the sign-in was not linked to it. Sign in with your password instead.`,
  );

const signInFirstToLink = (email: string, providerName: string) =>
  new DomainError(
    'forbidden',
    `An account with the email ${email} already exists and has a password. Sign in with your password first, then choose Sign in with ${providerName} to link the two.`,
  );

const linkedToAnotherSignIn = (email: string, providerName: string) =>
  new DomainError(
    'forbidden',
    `The account with the email ${email} is linked to another ${providerName} sign-in, so this one was not linked to it. Sign in with that one, or with the account's password.`,
  );

const unverifiedSignUp = (email: string, providerName: string) =>
  new DomainError(
    'forbidden',
    `${providerName} does not confirm that ${email} is your address, so no account was created for it. Verify the address at ${providerName} and try again, or sign up with a password.`,
  );

const signUpClosed = (providerName: string) =>
  new DomainError('forbidden', `Sign-up is closed on this service, and no account is linked to this ${providerName} sign-in. Ask its operator for an account.`);
