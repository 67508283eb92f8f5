import pg from 'pg';
import type { TokenInvalidation, TokenInvalidationListener, TokenInvalidations } from '../../application/ports/token-invalidations.js';

/** Where the database's triggers announce changes that kill tokens (migration 1700000010000). */
export const TOKEN_INVALIDATION_CHANNEL = 'dashpub_token_invalidation';

export interface InvalidationLogger {
  info(data: object, message: string): void;
  warn(data: object, message: string): void;
}

export interface PgTokenInvalidationsOptions {
  /** Wait before connecting again after the connection failed or dropped. */
  retryMs?: number;
  /** How often the idle connection is checked, so a silently dead one is noticed. */
  heartbeatMs?: number;
}

/** `grant:<uuid>`, `user:<uuid>` or `share:<uuid>`; anything else is not understood. */
export function parseInvalidation(payload: string | undefined): TokenInvalidation | null {
  const match = /^(grant|user|share):(.+)$/.exec(payload ?? '');
  return match ? { kind: match[1] as TokenInvalidation['kind'], id: match[2]! } : null;
}

/**
 * LISTENs on its own PostgreSQL connection (not one of the pool's: a pooled connection goes back and
 * may be closed). `live` is true only from the moment LISTEN succeeded until the connection errs, ends
 * or misses a heartbeat; listeners are reset at both edges, and it connects again after `retryMs`.
 */
export class PgTokenInvalidations implements TokenInvalidations {
  private readonly listeners: TokenInvalidationListener[] = [];
  private client: pg.Client | null = null;
  private connected = false;
  private hadConnection = false;
  private closed = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private heartbeatTimer: NodeJS.Timeout | null = null;
  private readonly retryMs: number;
  private readonly heartbeatMs: number;

  constructor(
    private readonly url: string,
    private readonly logger: InvalidationLogger,
    options: PgTokenInvalidationsOptions = {},
  ) {
    this.retryMs = options.retryMs ?? 1000;
    this.heartbeatMs = options.heartbeatMs ?? 5000;
  }

  get live(): boolean {
    return this.connected;
  }

  subscribe(listener: TokenInvalidationListener): void {
    this.listeners.push(listener);
  }

  /** Connects once; on failure it stays down (caches bypassed) and keeps retrying in the background. */
  async start(): Promise<void> {
    await this.connect();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const client = this.client;
    this.down();
    await client?.end().catch(() => {
      // Closing a connection that already broke: nothing left to release.
    });
  }

  private async connect(): Promise<void> {
    this.retryTimer = null;
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.url, keepAlive: true, query_timeout: 10_000, application_name: 'dashpub token invalidation' });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => {
      if (message.channel !== TOKEN_INVALIDATION_CHANNEL || this.client !== client) return;
      const change = parseInvalidation(message.payload);
      if (change) for (const listener of this.listeners) listener.invalidated(change);
      else this.reset(); // Not understood: forgetting everything is the safe reading.
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${TOKEN_INVALIDATION_CHANNEL}`);
    } catch (err) {
      // Logged once here; the handlers above ignore this client, which was never made current.
      this.logger.warn({ err, retryMs: this.retryMs }, 'token invalidation channel unavailable; verifying every token against the database');
      await client.end().catch(() => {}); // the failure is logged just above; ending a client that never connected has nothing to add
      this.retry();
      return;
    }
    if (this.closed) {
      await client.end().catch(() => {}); // closing down: this client was never made current and nothing waits on it
      return;
    }
    this.client = client;
    this.reset(); // What was remembered before this moment may have missed changes.
    this.connected = true;
    this.heartbeatTimer = setInterval(() => {
      client.query('SELECT 1').catch((err: unknown) => this.lost(client, err));
    }, this.heartbeatMs).unref();
    // The first connect is the normal start and says nothing; coming back after a loss is worth a line.
    if (this.hadConnection) this.logger.info({}, 'token invalidation channel listening again; verified tokens are cached again');
    this.hadConnection = true;
  }

  private lost(client: pg.Client, err?: unknown): void {
    if (this.client !== client) return;
    this.down();
    if (!this.closed) {
      this.logger.warn({ err: err ?? 'connection ended', retryMs: this.retryMs }, 'token invalidation channel lost; verifying every token against the database until it is back');
      client.end().catch(() => {}); // the loss is logged just above; a new client replaces this one
      this.retry();
    }
  }

  private down(): void {
    this.connected = false;
    this.client = null;
    if (this.heartbeatTimer) clearInterval(this.heartbeatTimer);
    this.heartbeatTimer = null;
    this.reset();
  }

  private reset(): void {
    for (const listener of this.listeners) listener.reset();
  }

  private retry(): void {
    if (this.closed || this.retryTimer) return;
    this.retryTimer = setTimeout(() => void this.connect(), this.retryMs);
    this.retryTimer.unref();
  }
}
