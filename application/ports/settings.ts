export const Settings = Symbol.for('Settings');
/** Operator settings (the environment variables of docs/operations.md, "Settings"), resolved once by the composition root. */
export interface Settings {
  port: number;
  host: string;
  baseUrl: string;
  appUrl: string;
  dashboardDomain: string;
  dashboardScheme: string;
  databaseUrl: string | null;
  /**
   * DATABASE_POOL_SIZE: connections each process keeps to the database. Each instance holds up to this
   * many (plus one listening for token revocations), so instances × size must stay under the server's
   * max_connections.
   */
  databasePoolSize: number;
  /**
   * LIST_CACHE_MB: megabytes of serialised list_dashboards answers each process remembers
   * (docs/decisions/0046-list-answer-cache.md); 0 turns the cache off.
   */
  listCacheMegabytes: number;
  redisUrl: string | null;
  dataDir: string;
  secretKey: string | null;
  /** SERVICE_NAME: the MCP server identity, its resource URI scheme and the name clients give the server (the spec's `service`). */
  serviceName: string;
  /** SERVICE_DISPLAY_NAME: the product's name on every page the service renders (default `dashpub`). */
  serviceDisplayName: string;
  allowSignup: boolean;
  /**
   * ALLOW_PRIVATE_WAREHOUSES: may warehouse connections reach loopback, private, link-local and other
   * non-public addresses. Off by default: a user's URL must not become a way into the service's own network.
   */
  allowPrivateWarehouses: boolean;
  /**
   * ALLOW_LOOPBACK_CLIENT_METADATA: may client ID metadata documents be fetched from loopback addresses
   * (and an http:// client id on loopback be used). For local testing only; off by default.
   */
  allowLoopbackClientMetadata: boolean;
  /** Upstream OpenID Connect sign-in: issuer URL and client, all null unless OIDC_ISSUER is set. */
  oidcIssuer: string | null;
  oidcClientId: string | null;
  /** Null for a public client (PKCE only). */
  oidcClientSecret: string | null;
  /** The provider's name on the sign-in button (`Sign in with <oidcName>`). */
  oidcName: string;
  /**
   * How many reverse proxies in front of the service append to X-Forwarded-For (TRUST_PROXY). 0: the
   * header is ignored and the client address is the socket's, since anyone can send the header.
   */
  trustProxyHops: number;
  /**
   * REFRESH_RETRY_GRACE_SECONDS: how long after a rotation the previous refresh token still works, once,
   * for a retry of the same request (default 10).
   */
  refreshRetryGraceSeconds: number;
  /**
   * MIN_REFRESH_INTERVAL_FREE_MINUTES and MIN_REFRESH_INTERVAL_PRO_MINUTES: the shortest gap between two
   * runs of a schedule that set_refresh_schedule accepts from a user on that plan (defaults 15 and 1).
   */
  minRefreshIntervalFreeMinutes: number;
  minRefreshIntervalProMinutes: number;
  /** REFRESH_BUDGET_PER_HOUR: runs per owner per hour that trigger_refresh may start. */
  refreshBudgetPerHour: number;
  logLevel: string;
  /**
   * The admin listener (metrics, /readyz, /livez): ADMIN_PORT, null when unset (no listener), bound to
   * ADMIN_HOST (default 127.0.0.1). Never served on the API, app or dashboards hosts.
   */
  adminPort: number | null;
  adminHost: string;
  /** SHUTDOWN_GRACE_SECONDS: how long SIGTERM waits for in-flight requests and jobs (default 10). */
  shutdownGraceSeconds: number;
  /**
   * MCP_ALLOWED_ORIGINS: browser origins besides the service's own (BASE_URL, APP_URL) whose requests /mcp
   * answers; a request with any other Origin header is refused with 403 (DNS rebinding).
   */
  mcpAllowedOrigins: string[];
  /** MCP_MAX_ANSWER_BYTES: bytes of one /mcp answer; batch members past it get a JSON-RPC error instead. */
  mcpMaxAnswerBytes: number;
  /** HTTP_HEADERS_TIMEOUT_SECONDS: time a client has to send a request's headers. */
  httpHeadersTimeoutSeconds: number;
  /** HTTP_BODY_TIMEOUT_SECONDS: time a client has to send a request's body, on every route but /mcp. */
  httpBodyTimeoutSeconds: number;
  /** MCP_BODY_TIMEOUT_SECONDS: time a client has to send a whole /mcp request (its body may be 32 MiB). */
  mcpBodyTimeoutSeconds: number;
  /** HTTP_MAX_CONNECTIONS: open connections each process accepts; more are closed at once. */
  httpMaxConnections: number;
  /** SELF_SANDBOXES: warm `self` sandboxes (worker threads, one owner each) per process, and so `self` queries run at once (default 3). */
  selfSandboxes: number;
  /** SELF_QUERY_TIMEOUT_SECONDS: the longest a `self` query may run (default 5). */
  selfQueryTimeoutSeconds: number;
  /** QUERY_MAX_CELL_BYTES and QUERY_MAX_RESULT_BYTES: bytes one cell and one query result may bring back (1 MiB, 16 MiB). */
  queryMaxCellBytes: number;
  queryMaxResultBytes: number;
  /** RENDER_THREADS: worker threads per process that draw spec pages (default 1); 0 draws them on the event loop. */
  renderThreads: number;
  /** SMTP_URL and MAIL_FROM: email delivery; it is off (and the Deliver section says so) while either is null. */
  smtpUrl: string | null;
  mailFrom: string | null;
  /** ALLOW_PRIVATE_WEBHOOKS: may webhook subscriptions post to loopback and private addresses (off by default). */
  allowPrivateWebhooks: boolean;
  /** DELIVERY_RETRY_DELAY_SECONDS: the first retry of a failed delivery waits this long, doubling after (default 30). */
  deliveryRetryDelaySeconds: number;
}
