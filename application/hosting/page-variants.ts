import { createHash } from 'node:crypto';
import { escapeHtml } from '../../domain/html.js';
import { previewTagsLine } from '../../domain/link-preview.js';
import type { Visibility } from '../../domain/metadata.js';
import { PARAM_FORM_START } from '../../domain/param-values.js';
import { PREVIEW_TAGS_START, SPEC_PAGE_OPENING, type ImageTheme } from '../../domain/page-theme.js';
import { BoundedCache } from '../../shared/bounded-cache.js';
import type { FileBytes } from './hosting-catalog.js';

/** Bytes of variants kept; a variant is derived from immutable bytes named by their ETag, so it never goes stale. */
const VARIANT_BUDGET_BYTES = 32 * 1024 * 1024;

/** How one answer shows a dashboard's page. */
export interface PageView {
  visibility: Visibility;
  /** The theme the URL pins (`?theme=`), for a spec page. */
  theme?: ImageTheme;
  /** What a public page published as a body is previewed as: the tags added name it (decision 0231). */
  preview?: { subdomain: string; slug: string; name: string; contentType: string };
}

/**
 * A dashboard's page as one answer shows it, each variant under its own ETag: a spec page without its
 * link-preview tags unless public (a private page gives no preview data) and pinned to the URL's theme; a
 * public body page with preview tags added when it has none of its own. Variants are made once per file
 * and kept, so no answer copies a page per request.
 */
export class PageVariants {
  private readonly made = new BoundedCache<FileBytes | null>({ capacity: VARIANT_BUDGET_BYTES, ttlMs: Infinity, cost: (f) => (f ? f.body.byteLength : 64) });

  constructor(private readonly pageUrl: (subdomain: string, slug: string) => string) {}

  of(file: FileBytes, view: PageView): FileBytes {
    if (isSpecPage(file.body)) return this.specVariant(file, view.visibility !== 'public', view.theme);
    return view.visibility === 'public' && view.preview ? this.previewed(file, view.preview) : file;
  }

  private specVariant(file: FileBytes, hidePreview: boolean, theme: ImageTheme | undefined): FileBytes {
    if (!hidePreview && theme === undefined) return file;
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

  /** Everything the tags are made of is in the key, so the hot path only looks the variant up (null: bytes kept). */
  private previewed(file: FileBytes, preview: NonNullable<PageView['preview']>): FileBytes {
    if (!preview.contentType.startsWith('text/html')) return file;
    const key = `${file.etag}|preview|${preview.subdomain}\n${preview.slug}\n${preview.name}`;
    let known = this.made.get(key, 0);
    if (known === undefined) {
      known = this.previewVariant(file, preview);
      this.made.set(key, known, 0);
    }
    return known ?? file;
  }

  /** The page with the tags added, under an ETag that names them; null when it keeps its own bytes. */
  private previewVariant(file: FileBytes, preview: NonNullable<PageView['preview']>): FileBytes | null {
    const url = this.pageUrl(preview.subdomain, preview.slug);
    const line = previewTagsLine({ title: preview.name, description: `Dashboard by ${preview.subdomain}`, url, imageWidth: 1200, imageHeight: 630 });
    if (line === '' || hasOwnPreviewTags(file.body)) return null;
    const body = withPreviewTags(file.body, line);
    return body && { body, etag: variantEtag(file.etag, `preview-${createHash('sha256').update(line).digest('hex').slice(0, 16)}`) };
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

/** A page's own Open Graph or Twitter tag, its attributes in any order. */
const OWN_PREVIEW_TAG = /<meta\b[^>]*?\b(?:property|name)\s*=\s*["']?\s*(?:og|twitter):/i;

/**
 * True when a page published as a body has link-preview tags of its own: looked for before `</head>`, or in
 * the whole page when it has none. Read as latin1, so the ASCII patterns match in any ASCII-based encoding.
 */
export function hasOwnPreviewTags(body: Buffer): boolean {
  const text = body.toString('latin1');
  const end = text.search(/<\/head\b/i);
  return OWN_PREVIEW_TAG.test(end < 0 ? text : text.slice(0, end));
}

/**
 * A page published as a body with `line` (the preview tags) on a line of its own: after its `<head>` tag,
 * else after `<html>`, else after the doctype, else at the start (after a UTF-8 BOM). Removing `\n?line\n`
 * gives back the page as published. Null for a page in UTF-16, where ASCII tags cannot be inserted.
 */
export function withPreviewTags(body: Buffer, line: string): Buffer | null {
  if (body.byteLength >= 2 && ((body[0] === 0xfe && body[1] === 0xff) || (body[0] === 0xff && body[1] === 0xfe))) return null;
  const text = body.toString('latin1');
  let at = text.startsWith('\xef\xbb\xbf') ? 3 : 0;
  for (const opening of [/<head\b[^>]*>/i, /<html\b[^>]*>/i, /<!doctype\b[^>]*>/i]) {
    const match = opening.exec(text);
    if (match) {
      at = match.index + match[0].length;
      break;
    }
  }
  return Buffer.concat([body.subarray(0, at), Buffer.from(`${at === 0 ? '' : '\n'}${line}\n`, 'utf8'), body.subarray(at)]);
}

/**
 * A spec page with notices after its parameter form (values refused, the budget spent); its ETag names
 * the notices, so a cache never serves one variant for another.
 */
export function withNotices(file: FileBytes, notices: readonly string[]): FileBytes {
  if (notices.length === 0) return file;
  const at = file.body.indexOf('</form>');
  if (at < 0) return file;
  const html = notices.map((n) => `<p class="notice" role="status">${escapeHtml(n)}</p>`).join('');
  const end = at + '</form>'.length;
  const body = Buffer.concat([file.body.subarray(0, end), Buffer.from(html, 'utf8'), file.body.subarray(end)]);
  return { body, etag: variantEtag(file.etag, `n${createHash('sha256').update(notices.join('\n')).digest('hex').slice(0, 16)}`) };
}

/** A spec page with a parameter form, whose URL's values change what it shows. */
export function hasParamForm(body: Buffer): boolean {
  return isSpecPage(body) && body.includes(PARAM_FORM_START);
}

/**
 * A spec page without its parameter form (notices after it stay): an embed's viewer can change no value,
 * since every parameter in its URL is signed, so the form would only lead to a 404.
 */
export function withoutParamForm(body: Buffer): Buffer {
  if (!isSpecPage(body)) return body;
  const start = body.indexOf(PARAM_FORM_START);
  const end = start < 0 ? -1 : body.indexOf('</form>', start);
  if (end < 0) return body;
  return Buffer.concat([body.subarray(0, start), body.subarray(end + '</form>'.length)]);
}
