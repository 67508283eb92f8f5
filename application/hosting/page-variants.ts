import { createHash } from 'node:crypto';
import { escapeHtml } from '../../domain/html.js';
import type { FileBytes } from './hosting-catalog.js';
import { PARAM_FORM_START } from '../../domain/param-values.js';
import { PREVIEW_TAGS_START, SPEC_PAGE_OPENING, type ImageTheme } from '../../domain/page-theme.js';

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
