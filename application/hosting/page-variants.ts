import type { Visibility } from '../../domain/metadata.js';
import { PREVIEW_TAGS_START, SPEC_PAGE_OPENING, type ImageTheme } from '../../domain/page-theme.js';
import { BoundedCache } from '../../shared/bounded-cache.js';
import type { FileBytes } from './hosting-catalog.js';

/** Bytes of variants kept; a variant is derived from immutable bytes named by their ETag, so it never goes stale. */
const VARIANT_BUDGET_BYTES = 32 * 1024 * 1024;

/**
 * A spec page as one answer shows it: without link-preview tags unless public (a private page gives no
 * preview data), and pinned to `theme` when the URL asks; each variant has its own ETag. Variants are made
 * once per file and kept, so a page behind a share link or a sign-in costs no copy per request.
 */
export class PageVariants {
  private readonly made = new BoundedCache<FileBytes>({ capacity: VARIANT_BUDGET_BYTES, ttlMs: Infinity, cost: (f) => f.body.byteLength });

  of(file: FileBytes, visibility: Visibility, theme?: ImageTheme): FileBytes {
    const hidePreview = visibility !== 'public';
    if ((!hidePreview && theme === undefined) || !isSpecPage(file.body)) return file;
    const key = `${file.etag}|${hidePreview ? 'private' : ''}|${theme ?? ''}`;
    const kept = this.made.get(key, 0);
    if (kept) return kept;
    let { body, etag } = file;
    if (hidePreview) {
      body = withoutPreviewTags(body);
      etag = variantEtag(etag, 'private');
    }
    if (theme !== undefined) {
      body = themedPage(body, theme);
      etag = variantEtag(etag, theme);
    }
    const variant = { body, etag };
    this.made.set(key, variant, 0);
    return variant;
  }
}

/** True for a page the spec renderer wrote (by its opening bytes). */
export function isSpecPage(body: Uint8Array): boolean {
  if (body.byteLength < SPEC_PAGE_OPENING.length) return false;
  for (let i = 0; i < SPEC_PAGE_OPENING.length; i++) if (body[i] !== SPEC_PAGE_OPENING.charCodeAt(i)) return false;
  return true;
}

/** A spec page pinned to one theme, whatever the reader's setting; other bytes are returned as they are. */
export function themedPage(body: Buffer, theme: ImageTheme): Buffer {
  if (!isSpecPage(body)) return body;
  const opening = SPEC_PAGE_OPENING.replace('data-theme="auto"', `data-theme="${theme}"`);
  return Buffer.concat([Buffer.from(opening, 'latin1'), body.subarray(SPEC_PAGE_OPENING.length)]);
}

/** A spec page without its link-preview tags, for any answer that is not public; other bytes unchanged. */
export function withoutPreviewTags(body: Buffer): Buffer {
  if (!isSpecPage(body)) return body;
  const start = body.indexOf(PREVIEW_TAGS_START);
  if (start < 0) return body;
  const end = body.indexOf(0x0a, start);
  return Buffer.concat([body.subarray(0, start), body.subarray(end < 0 ? body.byteLength : end + 1)]);
}

/** The ETag of a variant for bytes derived from a file, so caches never mix the variants. */
export function variantEtag(etag: string, variant: string): string {
  return etag.endsWith('"') ? `${etag.slice(0, -1)}-${variant}"` : `${etag}-${variant}`;
}
