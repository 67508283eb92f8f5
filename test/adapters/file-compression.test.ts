import { createHash, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import type { DataSource } from 'typeorm';
import { FileCompression1700000015000 } from '../../adapters/postgres/migrations/1700000015000-file-compression.js';
import { PostgresDashboardStore } from '../../adapters/postgres/postgres-dashboard-store.js';
import type { OwnerRef } from '../../domain/scope.js';
import { aDashboard } from '../support/mothers.js';
import { openEmbeddedDatabase, openTestDatabase, suiteDatabase, type OpenDatabase } from '../support/database.js';

const sha = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** A page of `size` bytes that compresses as HTML does, with a unique head and every byte value in it. */
function page(size: number): Buffer {
  const head = Buffer.concat([Buffer.from(`<!doctype html><!--${randomUUID()}-->`), Buffer.from(Array.from({ length: 256 }, (_, i) => i))]);
  const rows: string[] = [];
  for (let i = 0, length = head.length; length < size; i++) {
    const row = `<tr><td>${i}</td><td>région-${i % 7}</td><td>${((i * 7919) % 100_000) / 100}</td></tr>\n`;
    rows.push(row);
    length += Buffer.byteLength(row);
  }
  return Buffer.concat([head, Buffer.from(rows.join(''))]).subarray(0, size);
}

/** The column's compression setting: `lz4`, or `pglz` for the server default (attcompression ''). */
async function columnCompression(dataSource: DataSource): Promise<string> {
  const [row] = await dataSource.query(`SELECT attcompression FROM pg_attribute WHERE attrelid = 'files'::regclass AND attname = 'bytes'`);
  return { l: 'lz4', p: 'pglz', '': 'pglz' }[row.attcompression as string] ?? `unknown ${row.attcompression}`;
}

async function storedCompression(dataSource: DataSource, sha256: string): Promise<string | null> {
  const [row] = await dataSource.query(`SELECT pg_column_compression(bytes) AS method FROM files WHERE sha256 = $1`, [sha256]);
  return row.method;
}

/** One body publish of `bytes` as index.html, through the store's real publish path (dashpub_publish). */
async function publishFile(store: PostgresDashboardStore, bytes: Uint8Array): Promise<void> {
  const owner: OwnerRef = { kind: 'user', id: randomUUID() };
  await store.publish(owner, 'big', [{ sha256: sha(bytes), bytes }], (state) => {
    const now = new Date();
    const base = aDashboard(owner, { slug: 'big', createdBy: randomUUID(), createdAt: now, updatedAt: now });
    const files = { 'index.html': { sha256: sha(bytes), size: bytes.byteLength, contentType: 'text/html; charset=utf-8' } };
    const version = { id: randomUUID(), dashboardId: base.id, name: null, createdAt: now, createdBy: randomUUID(), files, spec: null };
    return { write: { dashboard: { ...base, currentVersionId: version.id }, isNew: state.dashboard === null, version }, result: null };
  });
}

/** files.bytes after the FileCompression migration, on a server with LZ4 and on one without. */
function describeFileCompression(name: string, open: OpenDatabase, expected: 'lz4' | 'pglz'): void {
  describe(`files.bytes compression (${name})`, function () {
    this.timeout(120_000);
    const db = suiteDatabase(open);

    it(`is ${expected} after the migrations`, async () => {
      expect(await columnCompression(db.dataSource)).to.equal(expected);
    });

    it('stores a 5 MiB page compressed and reads it back byte for byte', async () => {
      const bytes = page(5 * 1024 * 1024);
      await publishFile(new PostgresDashboardStore(db.dataSource), bytes);
      expect(await storedCompression(db.dataSource, sha(bytes))).to.equal(expected);
      const read = await new PostgresDashboardStore(db.dataSource).getFile(sha(bytes));
      expect(read!.byteLength).to.equal(bytes.byteLength);
      expect(Buffer.from(read!).equals(bytes)).to.equal(true);
    });

    it('leaves rows stored before it as they were: both read back, each with its own compression', async () => {
      const migration = new FileCompression1700000015000();
      const runner = db.dataSource.createQueryRunner();
      const store = new PostgresDashboardStore(db.dataSource);
      const before = page(64 * 1024);
      const after = page(64 * 1024);
      try {
        await migration.down(runner);
        expect(await columnCompression(db.dataSource)).to.equal('pglz');
        await publishFile(store, before);
        await migration.up(runner);
        expect(await columnCompression(db.dataSource)).to.equal(expected);
        await publishFile(store, after);
      } finally {
        await runner.release();
      }
      expect(await storedCompression(db.dataSource, sha(before))).to.equal('pglz');
      expect(await storedCompression(db.dataSource, sha(after))).to.equal(expected);
      expect(Buffer.from((await store.getFile(sha(before)))!).equals(before)).to.equal(true);
      expect(Buffer.from((await store.getFile(sha(after)))!).equals(after)).to.equal(true);
    });
  });
}

// The shared server is Debian's PostgreSQL 15, built with LZ4.
describeFileCompression('PostgreSQL', openTestDatabase, 'lz4');

// PGlite is built without LZ4: the migration keeps pglz there.
describeFileCompression('embedded PGlite', () => openEmbeddedDatabase('dashpub-compression'), 'pglz');
