import { escapeHtml } from './html.js';
import { PREVIEW_TAGS_START } from './page-theme.js';

/** What a page's link preview says, and how large the image at `/_image/<slug>.png` is. */
export interface LinkPreview {
  title: string;
  description: string;
  /** The page's canonical URL; only an http(s) one gets tags. */
  url: string;
  imageWidth: number;
  /** Known for a card (1200 × 630); a spec dashboard's image is as tall as its panels. */
  imageHeight?: number;
}

/** Text for a one-line preview tag: escaped, no line breaks, bounded. */
function previewText(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return escapeHtml(flat.length > max ? `${flat.slice(0, max - 1)}…` : flat);
}

/**
 * Link-preview tags (Open Graph, Twitter) on one line starting with PREVIEW_TAGS_START, so the host can drop
 * them whole from any answer that is not public. The image is the dashboard's PNG on the same host; a URL
 * that is not http(s) (a dry run's preview) gets none: ''.
 */
export function previewTagsLine(preview: LinkPreview): string {
  if (!/^https?:\/\//i.test(preview.url)) return '';
  const url = new URL(preview.url);
  const slug = url.pathname.replace(/\/+$/, '').split('/').pop() ?? '';
  const image = `${url.origin}/_image/${encodeURIComponent(slug)}.png`;
  return [
    PREVIEW_TAGS_START,
    `<meta property="og:title" content="${previewText(preview.title, 200)}">`,
    `<meta property="og:description" content="${previewText(preview.description, 300)}">`,
    `<meta property="og:url" content="${escapeHtml(preview.url)}">`,
    `<meta property="og:image" content="${escapeHtml(image)}">`,
    `<meta property="og:image:width" content="${preview.imageWidth}">`,
    preview.imageHeight === undefined ? '' : `<meta property="og:image:height" content="${preview.imageHeight}">`,
    `<meta property="og:image:alt" content="${previewText(preview.title, 200)}">`,
    '<meta name="twitter:card" content="summary_large_image">',
  ].join('');
}
