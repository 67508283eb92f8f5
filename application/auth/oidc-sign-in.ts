import { inject, injectable, optional } from 'inversify';
import { DomainError } from '../../domain/errors.js';
import { UPSTREAM_ATTEMPT_SECONDS } from '../../domain/upstream-sign-in.js';
import { publicUser } from '../accounts/admin-accounts.js';
import { safeReturnPath } from '../hosting/viewer-access.js';
import { Clock } from '../ports/clock.js';
import { IdentityProvider, type SignInChecks } from '../ports/identity-provider.js';
import { SecretSealer } from '../ports/secret-sealer.js';
import { UpstreamAccounts, type AccountMatch } from './upstream-accounts.js';
import type { SignedIn } from './web-accounts.js';
import { WebSessionService } from './web-session-service.js';

/** A started sign-in: where to send the browser, and the sealed attempt for it to carry meanwhile. */
export interface StartedUpstreamSignIn {
  authorizationUrl: string;
  attempt: string;
  maxAgeSeconds: number;
}

export interface FinishedUpstreamSignIn extends SignedIn {
  returnTo: string;
  match: AccountMatch;
}

/** What the browser carries between the start and the callback, sealed. */
interface Attempt extends SignInChecks {
  returnTo: string;
  expiresAt: number;
}

const DEFAULT_RETURN = '/account';

const attemptLost = () =>
  new DomainError('unauthenticated', 'This sign-in attempt has expired or was started in another browser. Start again.');

/**
 * Sign-in through the upstream OpenID Connect provider, when one is configured. `start` makes the
 * checks (state, nonce, PKCE verifier) and seals them with the return target into an attempt the
 * browser keeps for ten minutes; `finish` opens it, lets the provider verify its answer against it,
 * finds or makes the account, and starts a web session exactly as password sign-in does.
 */
@injectable()
export class OidcSignIn {
  constructor(
    @inject(IdentityProvider) @optional() private readonly provider: IdentityProvider | undefined,
    @inject(SecretSealer) private readonly sealer: SecretSealer,
    @inject(UpstreamAccounts) private readonly accounts: UpstreamAccounts,
    @inject(WebSessionService) private readonly sessions: WebSessionService,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  /** The provider's label for the sign-in button, or null when upstream sign-in is not configured. */
  get providerName(): string | null {
    return this.provider?.displayName ?? null;
  }

  /** `returnTo` is re-checked here: only a path on the app itself survives. */
  async start(returnTo: string): Promise<StartedUpstreamSignIn> {
    const provider = this.configured();
    const { authorizationUrl, checks } = await provider.beginSignIn();
    const attempt: Attempt = {
      ...checks,
      returnTo: returnTo ? safeReturnPath(returnTo) : DEFAULT_RETURN,
      expiresAt: this.clock.now().getTime() + UPSTREAM_ATTEMPT_SECONDS * 1000,
    };
    return { authorizationUrl, attempt: this.sealer.seal(JSON.stringify(attempt)), maxAgeSeconds: UPSTREAM_ATTEMPT_SECONDS };
  }

  /** `signedInUserId`: who the browser is signed in as already, if anyone (it may link a password account). */
  async finish(input: { callbackQuery: string; attempt: string | null; signedInUserId: string | null }): Promise<FinishedUpstreamSignIn> {
    const provider = this.configured();
    const attempt = this.open(input.attempt);
    if (!attempt || attempt.expiresAt <= this.clock.now().getTime()) throw attemptLost();
    const identity = await provider.completeSignIn(input.callbackQuery, attempt);
    const { user, match } = await this.accounts.resolve(identity, provider.displayName, input.signedInUserId);
    return { user: publicUser(user), session: await this.sessions.start(user.id), returnTo: attempt.returnTo, match };
  }

  /** Where a failed attempt should still lead after signing in another way (the sign-in page keeps it). */
  returnTargetOf(sealedAttempt: string | null): string {
    return this.open(sealedAttempt)?.returnTo ?? DEFAULT_RETURN;
  }

  private configured(): IdentityProvider {
    if (!this.provider) throw new DomainError('not_found', 'Sign-in with an external provider is not configured on this service.');
    return this.provider;
  }

  /** The attempt, or null when absent, tampered with, sealed under another key, or malformed. */
  private open(sealed: string | null): Attempt | null {
    if (!sealed) return null;
    let value: unknown;
    try {
      value = JSON.parse(this.sealer.open(sealed));
    } catch {
      return null;
    }
    return isAttempt(value) ? value : null;
  }
}

function isAttempt(value: unknown): value is Attempt {
  if (typeof value !== 'object' || value === null) return false;
  const v = value as Record<string, unknown>;
  return (
    ['state', 'nonce', 'codeVerifier', 'returnTo'].every((key) => typeof v[key] === 'string' && v[key] !== '') &&
    typeof v.expiresAt === 'number'
  );
}
