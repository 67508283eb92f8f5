import { invalid } from './errors.js';

/**
 * Signed embeds: a dashboard's page served at `/_embed/<slug>?[params&]exp=<unix seconds>&sig=<hex>` for
 * framing by the origins its owner listed. `sig` is HMAC-SHA256, keyed with the owner's embed secret, over
 * the canonical message below, in lowercase hex; every parameter value in the URL is locked by it.
 */

/** No publishable slug starts with `_`, so the prefix can never name a dashboard. */
export const EMBED_PATH_PREFIX = '/_embed/';

/** How far ahead an embed URL's expiry may lie. */
export const EMBED_MAX_LIFETIME_MS = 30 * 24 * 60 * 60 * 1000;
/** Tolerance for a host page whose clock runs a little ahead of ours when it signs for the full 30 days. */
export const EMBED_CLOCK_SKEW_MS = 5 * 60 * 1000;
export const EMBED_ORIGINS_MAX = 20;

/** Embed settings of one dashboard: whether it may be embedded, and by which origins. */
export interface EmbedSettings {
  enabled: boolean;
  /** Normalised origins (`normaliseOrigin`), in the order they were added. */
  origins: string[];
}

export const EMBEDDING_OFF: EmbedSettings = { enabled: false, origins: [] };

/** One parameter of an embed URL, decoded: a name and a value (a multi_select repeats its name). */
export type EmbedParam = readonly [name: string, value: string];

/** The names an embed URL keeps for its signature, so no parameter can take them. */
export const EMBED_RESERVED = ['exp', 'sig'];

/**
 * The text an HMAC signs for `/_embed/<slug>` with `params` expiring at `exp` (unix seconds): the path,
 * `?`, each parameter as `name=value` with both percent-encoded as encodeURIComponent does, these texts
 * sorted as ASCII strings, then `exp=<exp>`, all joined by `&`. Without parameters it is `/_embed/<slug>?exp=<exp>`.
 */
export function embedSignedMessage(slug: string, exp: number, params: readonly EmbedParam[] = []): string {
  const pairs = params.map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`).sort();
  return `${EMBED_PATH_PREFIX}${slug}?${[...pairs, `exp=${exp}`].join('&')}`;
}

const EXP = /^[1-9][0-9]{0,11}$/;
const SIG = /^[0-9a-f]{64}$/;

/**
 * The `exp`, `sig` and parameters of an embed URL's raw query, or null. `exp` and `sig` appear exactly once,
 * in their plain form; every other `name=value` is a parameter, decoded as a form does (`+` is a space), in
 * any order: the signature is checked over their canonical form, so the values the page draws are the ones signed.
 */
export function parseEmbedQuery(query: string): { exp: number; sig: string; params: EmbedParam[] } | null {
  const own = new Map<string, string>();
  const params: EmbedParam[] = [];
  for (const part of query.split('&')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    const name = part.slice(0, eq);
    if (EMBED_RESERVED.includes(name)) {
      if (own.has(name)) return null;
      own.set(name, part.slice(eq + 1));
      continue;
    }
    const [decoded] = new URLSearchParams(part);
    params.push(decoded!);
  }
  const exp = own.get('exp');
  const sig = own.get('sig');
  if (exp === undefined || sig === undefined || !EXP.test(exp) || !SIG.test(sig)) return null;
  if (params.some(([name]) => EMBED_RESERVED.includes(name))) return null;
  return { exp: Number(exp), sig, params };
}

/** Whether an expiry (unix seconds) lies ahead of `nowMs` and no further than 30 days (and the skew). */
export function embedExpiryAccepted(exp: number, nowMs: number): boolean {
  const expMs = exp * 1000;
  return expMs > nowMs && expMs <= nowMs + EMBED_MAX_LIFETIME_MS + EMBED_CLOCK_SKEW_MS;
}

/** The expiry (unix seconds) of a URL generated now for `lifetimeMs`; refuses lifetimes outside (0, 30 days]. */
export function embedExpiry(lifetimeMs: number, nowMs: number): number {
  if (!Number.isFinite(lifetimeMs) || lifetimeMs <= 0) throw invalid('expiry must be in the future');
  if (lifetimeMs > EMBED_MAX_LIFETIME_MS) throw invalid('expiry must be at most 30 days ahead');
  return Math.floor((nowMs + lifetimeMs) / 1000);
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const ORIGIN = /^(https?):\/\/([^/:?#@\s]+|\[[0-9a-f:.]+\])(?::([0-9]{1,5}))?\/?$/;
const DEFAULT_PORTS: Readonly<Record<string, string>> = { http: '80', https: '443' };

/**
 * An origin as CSP's `frame-ancestors` takes it: `https://host[:port]`, lowercase, without a default
 * port or a trailing slash. Paths, queries, credentials, wildcards and anything else are refused, so
 * nothing but an origin ever reaches the header.
 */
export function normaliseOrigin(text: string): string {
  const given = text.trim();
  const match = ORIGIN.exec(given.toLowerCase());
  const refuse = () => invalid(`origin "${given.slice(0, 200)}" must be a scheme and host like https://example.com (with a port if not the default)`);
  if (!match) throw refuse();
  const [, scheme, host, port] = match as unknown as [string, string, string, string | undefined];
  if (!host.startsWith('[') && (host.length > 253 || !host.split('.').every((label) => LABEL.test(label)))) throw refuse();
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535)) throw refuse();
  const keepPort = port !== undefined && port !== DEFAULT_PORTS[scheme] ? `:${Number(port)}` : '';
  return `${scheme}://${host}${keepPort}`;
}

/** A whole list as a form or command gives it: normalised, duplicates dropped, at most 20. */
export function normaliseOrigins(texts: readonly string[]): string[] {
  const origins = [...new Set(texts.filter((t) => t.trim() !== '').map(normaliseOrigin))];
  if (origins.length > EMBED_ORIGINS_MAX) throw invalid(`a dashboard can allow at most ${EMBED_ORIGINS_MAX} origins`);
  return origins;
}

/** The `frame-ancestors` source list for an embed answer: the listed origins, or none at all. */
export function embedFrameAncestors(origins: readonly string[]): string {
  return origins.length === 0 ? "'none'" : origins.join(' ');
}
