import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ArchiveFileSink } from '../../application/dashboards/export-dashboards.js';
import type { ArchiveFileSource } from '../../application/dashboards/import-dashboards.js';
import { ARCHIVE_FILE_CAP_BYTES, isSha256, type ArchiveManifest } from '../../domain/dashboard-archive.js';
import { DomainError, invalid } from '../../domain/errors.js';

/**
 * The export archive on disk: a directory holding `dashpub-export.json` (the manifest) and
 * `files/<sha256>`, each distinct file once. Only this module knows that layout.
 */
export const MANIFEST_FILE = 'dashpub-export.json';
export const FILES_DIR = 'files';

const errnoOf = (err: unknown) => (err as NodeJS.ErrnoException).code;

/** An archive being written: into a hidden sibling first, renamed onto `out` only when complete. */
export interface PendingArchive {
  sink: ArchiveFileSink;
  complete(manifest: ArchiveManifest): Promise<void>;
  abandon(): Promise<void>;
}

/**
 * Refuses an `out` (relative to `cwd`) that exists and is not an empty directory, then starts writing beside it, so a
 * failed or interrupted export never leaves a directory that looks like a finished archive.
 */
export async function startArchive(out: string, cwd: string): Promise<PendingArchive> {
  const target = path.resolve(cwd, out);
  await refuseUnlessMissingOrEmpty(out, target);
  await mkdir(path.dirname(target), { recursive: true });
  const staging = path.join(path.dirname(target), `.${path.basename(target)}.partial-${randomBytes(4).toString('hex')}`);
  await mkdir(path.join(staging, FILES_DIR), { recursive: true });
  return {
    sink: { save: (sha256, bytes) => writeFile(path.join(staging, FILES_DIR, sha256), bytes) },
    async complete(manifest) {
      await writeFile(path.join(staging, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
      // rename() cannot replace a directory portably; the empty one (checked above) is removed first,
      // and rmdir refuses if anything appeared in it meanwhile.
      await rmdir(target).catch((err) => {
        if (errnoOf(err) !== 'ENOENT') throw err;
      });
      await rename(staging, target);
    },
    abandon: () => rm(staging, { recursive: true, force: true }),
  };
}

/** Refuses an `--out` that exists and is not an empty directory (a missing one is fine). */
export async function refuseUnlessMissingOrEmpty(given: string, target: string): Promise<void> {
  try {
    const info = await stat(target);
    if (!info.isDirectory()) throw new DomainError('conflict', `--out ${given} exists and is not a directory; give a new or empty directory`);
    if ((await readdir(target)).length > 0) throw new DomainError('conflict', `--out ${given} is not empty; give a new or empty directory`);
  } catch (err) {
    if (errnoOf(err) !== 'ENOENT') throw err;
  }
}

export interface OpenedArchive {
  /** The manifest as parsed JSON, not yet checked (the import use case checks it). */
  manifest: unknown;
  files: ArchiveFileSource;
}

export async function openArchive(from: string, cwd: string): Promise<OpenedArchive> {
  const directory = path.resolve(cwd, from);
  let text: string;
  try {
    text = await readFile(path.join(directory, MANIFEST_FILE), 'utf8');
  } catch (err) {
    if (errnoOf(err) === 'ENOENT' || errnoOf(err) === 'ENOTDIR') throw invalid(`${from} is not a dashpub export archive: it has no ${MANIFEST_FILE}`);
    throw err;
  }
  let manifest: unknown;
  try {
    manifest = JSON.parse(text);
  } catch (err) {
    throw invalid(`${path.join(from, MANIFEST_FILE)} is not valid JSON: ${(err as Error).message}`);
  }
  return {
    manifest,
    files: {
      async read(sha256) {
        // Names come from the manifest: only a hash may become a path, never `../` or the like.
        if (!isSha256(sha256)) return null;
        const file = path.join(directory, FILES_DIR, sha256);
        try {
          // Only a plain file of bounded size: an archive from elsewhere must not make the import follow a
          // link out of it, block on a pipe, or read a device without end.
          const info = await lstat(file);
          if (!info.isFile()) throw invalid(`${file} is not a regular file (links and special files are refused)`);
          if (info.size > ARCHIVE_FILE_CAP_BYTES) throw invalid(`${file} is ${info.size} bytes, over the ${ARCHIVE_FILE_CAP_BYTES}-byte limit for one file`);
          return await readFile(file);
        } catch (err) {
          if (errnoOf(err) === 'ENOENT') return null;
          throw err;
        }
      },
    },
  };
}
