import { expect } from 'chai';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ConnectionRecord, ConnectionStore } from '../../application/ports/connection-store.js';
import { MemoryConnectionStore } from '../../adapters/memory/memory-connection-store.js';
import { TypeormConnectionStore } from '../../adapters/typeorm/typeorm-connection-store.js';
import { SECRET_KEY_REQUIRED, SecretBox } from '../../adapters/crypto/secret-box.js';
import { openDataSource } from '../../adapters/typeorm/data-source.js';
import { createTestDatabase } from '../support/database.js';

const record = (over: Partial<ConnectionRecord> = {}): ConnectionRecord => ({
  id: randomUUID(),
  ownerUserId: 'user-a',
  workspaceId: null,
  label: 'Warehouse',
  kind: 'postgres',
  url: 'postgres://reader:s3cret@db.example.com/sales',
  status: 'pending',
  lastTestedAt: null,
  lastError: null,
  createdAt: new Date('2024-01-01T00:00:00Z'),
  ...over,
});

export function describeConnectionStoreContract(name: string, make: () => Promise<{ store: ConnectionStore; close(): Promise<void> }>) {
  describe(`ConnectionStore contract: ${name}`, () => {
    let store: ConnectionStore;
    let close: () => Promise<void>;
    beforeEach(async () => ({ store, close } = await make()));
    afterEach(async () => close());

    it('stores and finds a connection, URL included', async () => {
      const r = record();
      await store.insert(r);
      expect(await store.findById(r.id)).to.deep.equal(r);
      expect(await store.findById(randomUUID())).to.equal(null);
    });

    it('lists by scope: personal ones of one user, or one workspace\'s from any member', async () => {
      const mine = record({ createdAt: new Date('2024-01-01T00:00:00Z') });
      const mine2 = record({ createdAt: new Date('2024-01-02T00:00:00Z') });
      const theirs = record({ ownerUserId: 'user-b' });
      const team = record({ workspaceId: 'ws-1' });
      const teamByOther = record({ ownerUserId: 'user-b', workspaceId: 'ws-1' });
      for (const r of [mine2, theirs, team, mine, teamByOther]) await store.insert(r);
      expect((await store.list({ kind: 'personal', userId: 'user-a' })).map((r) => r.id)).to.deep.equal([mine.id, mine2.id]);
      expect((await store.list({ kind: 'workspace', workspaceId: 'ws-1' })).map((r) => r.id).sort()).to.deep.equal([team.id, teamByOther.id].sort());
      expect(await store.listAll()).to.have.length(5);
    });

    it('records test outcomes and deletes', async () => {
      const r = record();
      await store.insert(r);
      const testedAt = new Date('2024-02-01T00:00:00Z');
      await store.recordTest(r.id, { status: 'failing', testedAt, error: 'boom' });
      expect(await store.findById(r.id)).to.deep.include({ status: 'failing', lastTestedAt: testedAt, lastError: 'boom' });
      expect(await store.delete(r.id)).to.equal(true);
      expect(await store.delete(r.id)).to.equal(false);
      expect(await store.findById(r.id)).to.equal(null);
    });
  });
}

describeConnectionStoreContract('memory', async () => ({ store: new MemoryConnectionStore(), close: async () => {} }));

describeConnectionStoreContract('PostgreSQL', async () => {
  const database = await createTestDatabase();
  const dataSource = await openDataSource(database.url);
  return {
    store: new TypeormConnectionStore(dataSource, SecretBox.fromKey('contract')),
    async close() {
      await dataSource.destroy();
      await database.drop();
    },
  };
});

describe('SecretBox (AES-256-GCM)', () => {
  it('round-trips, never repeats a ciphertext, and refuses a tampered or foreign one', () => {
    const box = SecretBox.fromKey('one');
    const a = box.seal('postgres://u:p@h/db');
    const b = box.seal('postgres://u:p@h/db');
    expect(a).not.to.equal(b);
    expect(a).not.to.include('postgres');
    expect(box.open(a)).to.equal('postgres://u:p@h/db');
    const parts = a.split(':');
    parts[3] = Buffer.from('x' + Buffer.from(parts[3]!, 'base64').toString('latin1').slice(1), 'latin1').toString('base64');
    expect(() => box.open(parts.join(':'))).to.throw();
    expect(() => SecretBox.fromKey('two').open(a)).to.throw();
  });

  it('generates a private key file in DATA_DIR on first use when SECRET_KEY is unset, once', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dashpub-key-'));
    const first = SecretBox.fromSettings({ secretKey: null, dataDir: dir });
    expect(existsSync(join(dir, 'secret.key'))).to.equal(false);
    const sealed = first.seal('x');
    const key = readFileSync(join(dir, 'secret.key'), 'utf8');
    expect(statSync(join(dir, 'secret.key')).mode & 0o777).to.equal(0o600);
    const second = SecretBox.fromSettings({ secretKey: null, dataDir: dir });
    expect(readFileSync(join(dir, 'secret.key'), 'utf8')).to.equal(key);
    expect(second.open(sealed)).to.equal('x');
  });

  it('on PostgreSQL never generates a key: without SECRET_KEY it says so on first use and writes nothing', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dashpub-key-'));
    const box = SecretBox.fromSettings({ secretKey: null, dataDir: dir, databaseUrl: 'postgres://db.example.com/dashpub' });
    expect(() => box.seal('x')).to.throw(SECRET_KEY_REQUIRED);
    expect(existsSync(join(dir, 'secret.key'))).to.equal(false);
  });
});
