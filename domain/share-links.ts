import { invalid } from './errors.js';

/**
 * A share link: a bearer URL that lets anyone holding it view one dashboard without an account. The token
 * is stored only as its SHA-256; the password only as the password hasher's hash.
 */
export interface ShareLink {
  id: string;
  dashboardId: string;
  label: string | null;
  /** The password hasher's hash, or null for a link without a password. */
  passwordHash: string | null;
  expiresAt: Date | null;
  paused: boolean;
  /** A pinned version is served instead of the current one, even after later publishes. */
  pinnedVersionId: string | null;
  views: number;
  lastUsedAt: Date | null;
  createdBy: string | null;
  createdAt: Date;
}

export type ShareLinkStatus = 'active' | 'paused' | 'expired';

export const SHARE_LABEL_MAX_LENGTH = 100;
export const SHARE_PASSWORD_MIN_LENGTH = 10;
export const SHARE_PASSWORD_MAX_LENGTH = 200;
export const SHARE_LINKS_PER_DASHBOARD = 100;
/** Wrong passwords allowed per link and address per minute. */
export const SHARE_PASSWORD_ATTEMPTS = 10;

export function shareLinkStatus(link: Pick<ShareLink, 'paused' | 'expiresAt'>, now: Date): ShareLinkStatus {
  if (link.expiresAt !== null && link.expiresAt.getTime() <= now.getTime()) return 'expired';
  return link.paused ? 'paused' : 'active';
}

/** A label as given, trimmed; empty means none. */
export function checkShareLabel(label: string | undefined | null): string | null {
  const trimmed = (label ?? '').trim();
  if (trimmed === '') return null;
  if (trimmed.length > SHARE_LABEL_MAX_LENGTH) throw invalid(`label must be at most ${SHARE_LABEL_MAX_LENGTH} characters`);
  if (/[\u0000-\u001f\u007f]/.test(trimmed)) throw invalid('label must not contain control characters');
  return trimmed;
}

/** Empty means none. */
export function checkSharePassword(password: string | undefined | null): string | null {
  if (password === undefined || password === null || password === '') return null;
  if (password.length < SHARE_PASSWORD_MIN_LENGTH) throw invalid(`password must be at least ${SHARE_PASSWORD_MIN_LENGTH} characters`);
  if (password.length > SHARE_PASSWORD_MAX_LENGTH) throw invalid(`password must be at most ${SHARE_PASSWORD_MAX_LENGTH} characters`);
  return password;
}

/** An expiry must lie ahead of `now`. */
export function checkShareExpiry(expiresAt: Date | null, now: Date): Date | null {
  if (expiresAt === null) return null;
  if (Number.isNaN(expiresAt.getTime())) throw invalid('expiry is not a valid date');
  if (expiresAt.getTime() <= now.getTime()) throw invalid('expiry must be in the future');
  if (expiresAt.getTime() - now.getTime() > SHARE_EXPIRY_MAX_MS) throw invalid('expiry must be within a year');
  return expiresAt;
}

/** In the style of the spec's rate-limit refusals. */
export const TOO_MANY_SHARE_PASSWORDS = 'Too many password attempts for this link. Wait about 60 seconds and try again.';

/** How long a browser's share session lasts at most (never past the link's own expiry). */
export const SHARE_SESSION_TTL_MS = 12 * 60 * 60 * 1000;

/** How far a link's expiry may lie ahead. */
export const SHARE_EXPIRY_MAX_MS = 366 * 24 * 60 * 60 * 1000;
