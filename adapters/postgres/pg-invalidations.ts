import pg from 'pg';
import type { DashboardChangeListener, DashboardChanges } from '../../application/ports/dashboard-changes.js';
import type { TokenInvalidation, TokenInvalidationListener, TokenInvalidations } from '../../application/ports/token-invalidations.js';

/** Where the database's triggers announce changes that kill tokens (migration 1700000010000). */
export const TOKEN_INVALIDATION_CHANNEL = 'dashpub_token_invalidation';
/** Where they announce changes to an owner's listing (migration 1700000015000). */
export const DASHBOARD_CHANGE_CHANNEL = 'dashpub_dashboard_change';
/** What the listener's connection calls itself in pg_stat_activity. */
export const INVALIDATION_APPLICATION_NAME = 'dashpub invalidation';

export interface InvalidationLogger {
  info(data: object, message: string): void;
  warn(data: object, message: string): void;
}

export interface PgInvalidationsOptions {
  /** Wait before connecting again after the connection failed or dropped. */
  retryMs?: number;
  /** How often the idle connection is checked, so a silently dead one is noticed. */
  heartbeatMs?: number;
}

/** `grant:<uuid>` or `user:<uuid>`; anything else is not understood. */
export function parseInvalidation(payload: string | undefined): TokenInvalidation | null {
  const match = /^(grant|user):(.+)$/.exec(payload ?? '');
  return match ? { kind: match[1] as 'grant' | 'user', id: match[2]! } : null;
}

/** `owner:<uuid>` names one owner; anything else (`all` after a TRUNCATE) is not understood. */
export function parseOwnerChange(payload: string | undefined): string | null {
  const match = /^owner:(.+)$/.exec(payload ?? '');
  return match ? match[1]! : null;
}

/**
 * LISTENs on both channels on one PostgreSQL connection of its own (not one of the pool's: a pooled
 * connection goes back and may be closed). `live` is true only from the moment LISTEN succeeded until the
 * connection errs, ends or misses a heartbeat; every listener of both facets is reset at both edges, and
 * it connects again after `retryMs`. A payload a facet does not understand resets that facet's listeners.
 */
export class PgInvalidations {
  /** The verified-token cache's channel. */
  readonly tokens: TokenInvalidations;
  /** The listing cache's channel. */
  readonly dashboards: DashboardChanges;
  private readonly tokenListeners: TokenInvalidationListener[] = [];
  private readonly dashboardListeners: DashboardChangeListener[] = [];
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
    options: PgInvalidationsOptions = {},
  ) {
    this.retryMs = options.retryMs ?? 1000;
    this.heartbeatMs = options.heartbeatMs ?? 5000;
    const live = () => this.connected;
    this.tokens = { get live() { return live(); }, subscribe: (listener) => void this.tokenListeners.push(listener) };
    this.dashboards = { get live() { return live(); }, subscribe: (listener) => void this.dashboardListeners.push(listener) };
  }

  get live(): boolean {
    return this.connected;
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

  private heard(channel: string, payload: string | undefined): void {
    if (channel === TOKEN_INVALIDATION_CHANNEL) {
      const change = parseInvalidation(payload);
      // Not understood: forgetting everything is the safe reading.
      for (const listener of this.tokenListeners) change ? listener.invalidated(change) : listener.reset();
    } else if (channel === DASHBOARD_CHANGE_CHANNEL) {
      const owner = parseOwnerChange(payload);
      for (const listener of this.dashboardListeners) owner ? listener.changed(owner) : listener.reset();
    }
  }

  private async connect(): Promise<void> {
    this.retryTimer = null;
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.url, keepAlive: true, query_timeout: 10_000, application_name: INVALIDATION_APPLICATION_NAME });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    client.on('notification', (message) => {
      if (this.client === client) this.heard(message.channel, message.payload);
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${TOKEN_INVALIDATION_CHANNEL}; LISTEN ${DASHBOARD_CHANGE_CHANNEL}`);
    } catch (err) {
      // Logged once here; the handlers above ignore this client, which was never made current.
      this.logger.warn({ err, retryMs: this.retryMs }, 'invalidation channel unavailable; verifying every token and building every listing from the database');
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
    if (this.hadConnection) this.logger.info({}, 'invalidation channel listening again; verified tokens and listings are cached again');
    this.hadConnection = true;
  }

  private lost(client: pg.Client, err?: unknown): void {
    if (this.client !== client) return;
    this.down();
    if (!this.closed) {
      this.logger.warn(
        { err: err ?? 'connection ended', retryMs: this.retryMs },
        'invalidation channel lost; verifying every token and building every listing from the database until it is back',
      );
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
    for (const listener of this.tokenListeners) listener.reset();
    for (const listener of this.dashboardListeners) listener.reset();
  }

  private retry(): void {
    if (this.closed || this.retryTimer) return;
    this.retryTimer = setTimeout(() => void this.connect(), this.retryMs);
    this.retryTimer.unref();
  }
}
