import { createHash, randomBytes } from 'node:crypto';
import { Container } from 'inversify';
import { MemoryAccountStore } from '../../adapters/memory/memory-account-store.js';
import { MemoryOAuthStore } from '../../adapters/memory/memory-oauth-store.js';
import { MemoryRateLimiter } from '../../adapters/memory/memory-rate-limiter.js';
import { NodeSecretTokens } from '../../adapters/crypto/node-secret-tokens.js';
import { ScryptPasswordHasher } from '../../adapters/crypto/scrypt-password-hasher.js';
import { OAuthTokenVerifier } from '../../application/auth/verify-access-token.js';
import { WebSessionService } from '../../application/auth/web-session-service.js';
import { AccountStore } from '../../application/ports/account-store.js';
import { Clock } from '../../application/ports/clock.js';
import { OAuthStore } from '../../application/ports/oauth-store.js';
import { PasswordHasher } from '../../application/ports/password-hasher.js';
import { RateLimiter } from '../../application/ports/rate-limiter.js';
import { SecretTokens } from '../../application/ports/secret-tokens.js';
import { Settings } from '../../application/ports/settings.js';
import { TokenVerifier } from '../../application/ports/token-verifier.js';
import { WebSessions } from '../../application/ports/web-sessions.js';
import { testSettings } from './settings.js';

/** A clock the test moves by hand. */
export class TestClock implements Clock {
  constructor(public ms = Date.UTC(2026, 0, 15, 12)) {}
  now = () => new Date(this.ms);
  advance(seconds: number): void {
    this.ms += seconds * 1000;
  }
}

/** Cheap scrypt for tests: the format and the checks are the production ones, only the cost is low. */
export const TEST_SCRYPT_COST = { N: 2 ** 10, r: 8, p: 1 };

export interface AuthKit {
  container: Container;
  clock: TestClock;
  store: OAuthStore;
  accounts: AccountStore;
  settings: Settings;
}

/**
 * The sign-in capability on memory adapters in its own container, with a hand-moved clock, for
 * application tests that need to wrap the store (fault injection) or move time.
 */
export function makeAuthKit(
  options: { store?: OAuthStore; accounts?: AccountStore; limiter?: RateLimiter; settings?: Partial<Settings> } = {},
): AuthKit {
  const clock = new TestClock();
  const settings = testSettings(options.settings);
  const store = options.store ?? new MemoryOAuthStore();
  const accounts = options.accounts ?? new MemoryAccountStore();
  const container = new Container({ defaultScope: 'Singleton', autobind: true });
  container.bind<Settings>(Settings).toConstantValue(settings);
  container.bind<Clock>(Clock).toConstantValue(clock);
  container.bind<AccountStore>(AccountStore).toConstantValue(accounts);
  container.bind<OAuthStore>(OAuthStore).toConstantValue(store);
  container.bind<SecretTokens>(SecretTokens).toConstantValue(new NodeSecretTokens());
  container.bind<PasswordHasher>(PasswordHasher).toConstantValue(new ScryptPasswordHasher(TEST_SCRYPT_COST));
  container.bind<RateLimiter>(RateLimiter).toConstantValue(options.limiter ?? new MemoryRateLimiter(clock));
  container.bind<TokenVerifier>(TokenVerifier).to(OAuthTokenVerifier);
  container.bind<WebSessions>(WebSessions).toService(WebSessionService);
  return { container, clock, store, accounts, settings };
}

/** A PKCE pair (RFC 7636): a fresh verifier and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}
