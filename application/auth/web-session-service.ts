import { inject, injectable } from 'inversify';
import { addSeconds, WEB_SESSION_SECONDS } from '../../domain/oauth.js';
import { Clock } from '../ports/clock.js';
import { OAuthStore } from '../ports/oauth-store.js';
import { SecretTokens } from '../ports/secret-tokens.js';
import type { WebSessions } from '../ports/web-sessions.js';

/** The web app's sign-in sessions: a random cookie value, stored as its SHA-256 only. */
@injectable()
export class WebSessionService implements WebSessions {
  constructor(
    @inject(OAuthStore) private readonly store: OAuthStore,
    @inject(SecretTokens) private readonly secrets: SecretTokens,
    @inject(Clock) private readonly clock: Clock,
  ) {}

  async start(userId: string): Promise<{ token: string; expiresAt: Date }> {
    const now = this.clock.now();
    const token = this.secrets.generate();
    const expiresAt = addSeconds(now, WEB_SESSION_SECONDS);
    await this.store.insertWebSession({ tokenHash: this.secrets.digest(token), userId, createdAt: now, expiresAt });
    return { token, expiresAt };
  }

  async resolve(sessionToken: string): Promise<{ userId: string } | null> {
    if (!this.secrets.wellFormed(sessionToken)) return null;
    const tokenHash = this.secrets.digest(sessionToken);
    const session = await this.store.findWebSession(tokenHash);
    if (!session || !this.secrets.same(session.tokenHash, tokenHash) || session.expiresAt <= this.clock.now()) return null;
    return { userId: session.userId };
  }

  /** Ends the session; answers whose it was (null when there was none), so signing out can end what hangs on it. */
  async end(sessionToken: string): Promise<string | null> {
    if (!this.secrets.wellFormed(sessionToken)) return null;
    const tokenHash = this.secrets.digest(sessionToken);
    const session = await this.store.findWebSession(tokenHash);
    await this.store.deleteWebSession(tokenHash);
    return session && this.secrets.same(session.tokenHash, tokenHash) ? session.userId : null;
  }
}
