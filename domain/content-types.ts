/**
 * Filename → Content-Type for dashboard files. The table is deliberately small and explicit:
 * the dashboards host serves whatever the publisher sent, so guessing (sniffing) is never done and
 * anything unknown is an opaque download.
 */
const TEXT = '; charset=utf-8';

const TYPES: Readonly<Record<string, string>> = {
  html: `text/html${TEXT}`,
  htm: `text/html${TEXT}`,
  css: `text/css${TEXT}`,
  js: `text/javascript${TEXT}`,
  mjs: `text/javascript${TEXT}`,
  json: `application/json${TEXT}`,
  map: `application/json${TEXT}`,
  csv: `text/csv${TEXT}`,
  tsv: `text/tab-separated-values${TEXT}`,
  txt: `text/plain${TEXT}`,
  md: `text/markdown${TEXT}`,
  xml: `application/xml${TEXT}`,
  svg: `image/svg+xml${TEXT}`,
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  avif: 'image/avif',
  ico: 'image/x-icon',
  pdf: 'application/pdf',
  woff: 'font/woff',
  woff2: 'font/woff2',
  ttf: 'font/ttf',
  otf: 'font/otf',
  wasm: 'application/wasm',
};

export const DEFAULT_CONTENT_TYPE = 'application/octet-stream';

export function contentTypeFor(filename: string): string {
  const dot = filename.lastIndexOf('.');
  if (dot < 0 || dot === filename.length - 1) return DEFAULT_CONTENT_TYPE;
  const ext = filename.slice(dot + 1).toLowerCase();
  return Object.prototype.hasOwnProperty.call(TYPES, ext) ? TYPES[ext]! : DEFAULT_CONTENT_TYPE;
}
