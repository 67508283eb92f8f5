import { createHash } from 'node:crypto';
import { contentTypeFor } from '../domain/content-types.js';
import type { FileEntry } from './ports/dashboard-store.js';

/** The content address of file bytes: hex SHA-256, the key the store keeps them under. */
export const contentHash = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/** The manifest entry for bytes published (or rendered) under `filename`. */
export function fileEntry(filename: string, bytes: Uint8Array): FileEntry {
  return { sha256: contentHash(bytes), size: bytes.byteLength, contentType: contentTypeFor(filename) };
}
