import { DomainError, invalid } from './errors.js';

export const SLUG_MAX_LENGTH = 64;
export const DEFAULT_FILENAME = 'index.html';

const SLUG_PATTERN = /^[a-z0-9-]+$/;
const FILENAME_PATTERN = /^[a-z0-9._-]+$/;
/** The common file-system limit; the dashboards host serves nothing longer. */
export const FILENAME_MAX_LENGTH = 255;

/**
 * Slugs the dashboards host itself answers on, so a dashboard there would be shadowed.
 * Refused by name rather than by charset so the caller learns why.
 */
export const RESERVED_SLUGS: ReadonlySet<string> = new Set([
  '_', '_auth', '_assets', '_health', 'healthz', 'favicon.ico', 'robots.txt', 'sitemap.xml', 'well-known',
]);

export function validateSlug(slug: unknown, argument = 'slug'): string {
  if (slug === undefined || slug === null || slug === '') throw invalid(`${argument} must not be empty`);
  if (typeof slug !== 'string') throw invalid(`${argument} must be a string`);
  if (!SLUG_PATTERN.test(slug)) throw invalid(`slug "${slug}" must match [a-z0-9-]`);
  if (slug.length > SLUG_MAX_LENGTH) throw invalid(`slug exceeds 64-char limit (got ${slug.length})`);
  if (RESERVED_SLUGS.has(slug)) throw new DomainError('invalid_argument', `slug "${slug}" is reserved`);
  return slug;
}

export function validateFilename(filename: string): string {
  if (filename === '' || !FILENAME_PATTERN.test(filename) || filename === '.' || filename === '..') {
    throw invalid(`filename "${filename}" must match [a-z0-9._-]`);
  }
  if (filename.length > FILENAME_MAX_LENGTH) throw invalid(`filename exceeds ${FILENAME_MAX_LENGTH}-char limit (got ${filename.length})`);
  // As a key of a plain object (a manifest) it would set the prototype instead of adding a file.
  if (filename === '__proto__') throw invalid(`filename "${filename}" is reserved`);
  return filename;
}

export interface DashboardPath {
  slug: string;
  filename: string;
}

/** `<slug>/<filename>`, or a bare `<slug>` meaning `<slug>/index.html`. */
export function parsePath(path: unknown): DashboardPath {
  if (path === undefined || path === null || path === '') throw invalid('path must not be empty');
  if (typeof path !== 'string') throw invalid('path must be a string');
  const segments = path.split('/');
  if (segments.length > 2 || segments.some((s) => s === '')) {
    throw invalid(`path "${path}": must be <slug>/<filename> (exactly two segments)`);
  }
  const slug = validateSlug(segments[0]);
  const filename = validateFilename(segments[1] ?? DEFAULT_FILENAME);
  return { slug, filename };
}

/**
 * Handles and workspace slugs are subdomains of the dashboard domain and share one namespace.
 * These names belong to the service itself.
 */
export const RESERVED_HANDLES: ReadonlySet<string> = new Set([
  'www', 'app', 'api', 'auth', 'admin', 'mail', 'static', 'assets', 'cdn', 'dash', 'dashboards', 'mcp',
  'oauth', 'login', 'signin', 'signup', 'help', 'support', 'status', 'docs', 'blog', 'root', 'system',
  'service', 'localhost',
]);

/** Handles are DNS labels with room to spare under the 63-byte limit. */
export const HANDLE_MAX_LENGTH = 40;

export function validateHandle(handle: unknown, what = 'handle'): string {
  if (typeof handle !== 'string' || handle === '') throw invalid(`${what} must be a non-empty string`);
  if (!/^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/.test(handle)) {
    throw invalid(`${what} "${handle}" must match [a-z0-9-] and start and end with a letter or digit`);
  }
  if (handle.length > HANDLE_MAX_LENGTH) throw invalid(`${what} exceeds ${HANDLE_MAX_LENGTH}-char limit (got ${handle.length})`);
  if (RESERVED_HANDLES.has(handle)) throw invalid(`${what} "${handle}" is reserved`);
  return handle;
}
