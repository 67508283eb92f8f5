import type {
  AccessTokenRecord,
  AuthorizationCodeRecord,
  AuthorizationRequestRecord,
  GrantRecord,
  OAuthClientRecord,
  OAuthData,
  OAuthStore,
  WebSessionRecord,
} from '../../application/ports/oauth-store.js';
import type { RefreshChain } from '../../domain/oauth.js';

class Tables {
  readonly clients = new Map<string, OAuthClientRecord>();
  readonly requests = new Map<string, AuthorizationRequestRecord>();
  readonly grants = new Map<string, GrantRecord>();
  readonly codes = new Map<string, AuthorizationCodeRecord>();
  readonly accessTokens = new Map<string, AccessTokenRecord>();
  readonly refreshTokens = new Map<string, string>();
  readonly sessions = new Map<string, WebSessionRecord>();
}

const copy = <T>(value: T | undefined): T | null => (value === undefined ? null : structuredClone(value));

/**
 * The operations over the tables. Inside a transaction every write records how to undo itself, so a
 * failed transaction leaves the tables as they were, the way a database rollback does.
 */
class MemoryOAuthData implements OAuthData {
  constructor(
    protected readonly t: Tables,
    private readonly undo: Array<() => void> | null,
  ) {}

  private put<V>(map: Map<string, V>, key: string, value: V): void {
    if (this.undo) {
      const had = map.has(key);
      const before = map.get(key);
      this.undo.push(() => (had ? map.set(key, before as V) : map.delete(key)));
    }
    map.set(key, structuredClone(value));
  }

  private remove<V>(map: Map<string, V>, key: string): boolean {
    if (!map.has(key)) return false;
    const before = map.get(key) as V;
    this.undo?.push(() => map.set(key, before));
    return map.delete(key);
  }

  async insertClient(client: OAuthClientRecord): Promise<void> {
    this.put(this.t.clients, client.id, client);
  }

  async findClient(id: string): Promise<OAuthClientRecord | null> {
    return copy(this.t.clients.get(id));
  }

  async saveClient(client: OAuthClientRecord): Promise<void> {
    this.put(this.t.clients, client.id, client);
  }

  async insertAuthorizationRequest(request: AuthorizationRequestRecord): Promise<void> {
    this.put(this.t.requests, request.handleHash, request);
  }

  async findAuthorizationRequest(handleHash: string): Promise<AuthorizationRequestRecord | null> {
    return copy(this.t.requests.get(handleHash));
  }

  async deleteAuthorizationRequest(handleHash: string): Promise<boolean> {
    return this.remove(this.t.requests, handleHash);
  }

  async insertGrant(grant: GrantRecord): Promise<void> {
    this.put(this.t.grants, grant.id, grant);
  }

  async findGrant(id: string): Promise<GrantRecord | null> {
    return copy(this.t.grants.get(id));
  }

  async listGrants(filter: { userId?: string }): Promise<GrantRecord[]> {
    return [...this.t.grants.values()]
      .filter((g) => filter.userId === undefined || g.userId === filter.userId)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? -1 : 1))
      .map((g) => structuredClone(g));
  }

  async updateRefreshChain(grantId: string, chain: RefreshChain): Promise<void> {
    const grant = this.t.grants.get(grantId);
    if (grant) this.put(this.t.grants, grantId, { ...grant, refresh: chain });
  }

  async revokeGrant(grantId: string, at: Date, reason: string): Promise<boolean> {
    const grant = this.t.grants.get(grantId);
    if (!grant || grant.revokedAt) return false;
    this.put(this.t.grants, grantId, { ...grant, revokedAt: at, revokedReason: reason });
    return true;
  }

  async insertCode(code: AuthorizationCodeRecord): Promise<void> {
    this.put(this.t.codes, code.codeHash, code);
  }

  async findCode(codeHash: string): Promise<AuthorizationCodeRecord | null> {
    return copy(this.t.codes.get(codeHash));
  }

  async markCodeUsed(codeHash: string, at: Date): Promise<boolean> {
    const code = this.t.codes.get(codeHash);
    if (!code || code.usedAt) return false;
    this.put(this.t.codes, codeHash, { ...code, usedAt: at });
    return true;
  }

  async insertAccessToken(token: AccessTokenRecord): Promise<void> {
    this.put(this.t.accessTokens, token.tokenHash, token);
  }

  async findAccessToken(tokenHash: string): Promise<{ token: AccessTokenRecord; grant: GrantRecord } | null> {
    const token = this.t.accessTokens.get(tokenHash);
    const grant = token && this.t.grants.get(token.grantId);
    return token && grant ? { token: structuredClone(token), grant: structuredClone(grant) } : null;
  }

  /** Users live in another store here: the handle is left to whoever needs it. */
  findAccessTokenForUse(tokenHash: string): Promise<{ token: AccessTokenRecord; grant: GrantRecord } | null> {
    return this.findAccessToken(tokenHash);
  }

  async insertRefreshToken(token: { tokenHash: string; grantId: string; createdAt: Date }): Promise<void> {
    this.put(this.t.refreshTokens, token.tokenHash, token.grantId);
  }

  async findRefreshTokenGrant(tokenHash: string): Promise<string | null> {
    return this.t.refreshTokens.get(tokenHash) ?? null;
  }

  async insertWebSession(session: WebSessionRecord): Promise<void> {
    this.put(this.t.sessions, session.tokenHash, session);
  }

  async findWebSession(tokenHash: string): Promise<WebSessionRecord | null> {
    return copy(this.t.sessions.get(tokenHash));
  }

  async deleteWebSession(tokenHash: string): Promise<void> {
    this.remove(this.t.sessions, tokenHash);
  }

  async purgeExpired(now: Date): Promise<void> {
    const expired = <V extends { expiresAt: Date }>(map: Map<string, V>) => {
      for (const [key, value] of map) if (value.expiresAt <= now) this.remove(map, key);
    };
    expired(this.t.requests);
    expired(this.t.codes);
    expired(this.t.accessTokens);
    expired(this.t.sessions);
  }
}

/**
 * OAuthStore in Maps, for tests and single-process use. Transactions run one at a time (the database
 * adapter's row locks serialize the same work) and roll back on failure.
 */
export class MemoryOAuthStore extends MemoryOAuthData implements OAuthStore {
  private tail: Promise<unknown> = Promise.resolve();

  constructor() {
    super(new Tables(), null);
  }

  transaction<T>(work: (tx: OAuthData) => Promise<T>): Promise<T> {
    const run = async () => {
      const undo: Array<() => void> = [];
      try {
        return await work(new MemoryOAuthData(this.t, undo));
      } catch (error) {
        for (const step of undo.reverse()) step();
        throw error;
      }
    };
    const result = this.tail.then(run, run);
    this.tail = result.catch(() => undefined); // the caller gets the error through `result`; the chain only orders transactions
    return result;
  }
}
