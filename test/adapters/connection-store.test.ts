import { expect } from 'chai';
import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MemoryConnectionStore } from '../../adapters/memory/memory-connection-store.js';
import { TypeormConnectionStore } from '../../adapters/postgres/typeorm-connection-store.js';
import { SECRET_KEY_REQUIRED, SecretBox } from '../../adapters/crypto/secret-box.js';
import { openTestDatabase } from '../support/database.js';
import { describeConnectionStoreContract } from './connection-store.contract.js';

describeConnectionStoreContract('memory', async () => ({ store: new MemoryConnectionStore(), close: async () => {} }));

describeConnectionStoreContract('PostgreSQL', async () => {
  const { dataSource, close } = await openTestDatabase();
  return { store: new TypeormConnectionStore(dataSource, SecretBox.fromKey('contract')), close };
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
