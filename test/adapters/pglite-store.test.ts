import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'chai';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { attachOrStartEmbedded, startEmbeddedPostgres, type EmbeddedDatabase } from '../../adapters/pglite/embedded-postgres.js';
import { openDataSource } from '../../adapters/postgres/data-source.js';
import { TypeormAccountStore } from '../../adapters/postgres/typeorm-account-store.js';
import { PostgresDashboardStore } from '../../adapters/postgres/postgres-dashboard-store.js';
import type { DomainError } from '../../domain/errors.js';
import { describeAccountStoreContract } from './account-store.contract.js';
import { describeDashboardStoreContract } from './dashboard-store.contract.js';
import { aUser } from '../support/mothers.js';

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

async function until(condition: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 100));
  }
  return true;
}

describe('embedded PGlite (child process behind a loopback socket)', function () {
  this.timeout(120_000);
  const dataDir = mkdtempSync(join(tmpdir(), 'dashpub-embedded-'));
  const record = join(dataDir, 'embedded.json');
  let embedded: EmbeddedDatabase;
  let dataSource: DataSource;

  before(async () => {
    embedded = await startEmbeddedPostgres(dataDir);
    dataSource = await openDataSource(embedded.url);
  });

  after(async () => {
    await dataSource?.destroy().catch(() => undefined);
    await embedded?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  describeAccountStoreContract('embedded PGlite', async () => ({ store: new TypeormAccountStore(dataSource), close: async () => {} }));
  describeDashboardStoreContract('embedded PGlite', async () => ({ store: new PostgresDashboardStore(dataSource), close: async () => {} }));

  it('records its address while running, so another process attaches instead of opening the data', async () => {
    const recorded = JSON.parse(readFileSync(record, 'utf8'));
    expect(recorded).to.include({ state: 'running', pid: embedded.pid, ownerPid: process.pid, url: embedded.url, role: 'server' });
    await aUser(new TypeormAccountStore(dataSource), { handle: 'seen-by-cli', email: 'cli@example.com' });
    const attached = await attachOrStartEmbedded(dataDir, { role: 'cli' });
    expect(attached).to.include({ url: embedded.url, pid: embedded.pid, attached: true });
    const client = new pg.Client({ connectionString: attached.url });
    await client.connect();
    const { rows } = await client.query(`SELECT email FROM users WHERE handle = 'seen-by-cli'`);
    await client.end();
    expect(rows).to.deep.equal([{ email: 'cli@example.com' }]);
    await attached.stop();
    expect(isAlive(embedded.pid)).to.equal(true);
    const refused = await startEmbeddedPostgres(dataDir).then(
      () => null,
      (error: Error) => error,
    );
    expect(refused?.message).to.match(/already in use/);
  });

  it('keeps many connections apart: transactions and parameterized queries never mix', async () => {
    const pool = new pg.Pool({ connectionString: embedded.url, max: 6 });
    try {
      await pool.query('CREATE TABLE IF NOT EXISTS embedded_probe (n integer)');
      const big = 'x'.repeat(200_000);
      const work = Array.from({ length: 60 }, async (_, i) => {
        if (i % 3 === 0) {
          const client = await pool.connect();
          try {
            await client.query('BEGIN');
            await client.query('INSERT INTO embedded_probe (n) VALUES ($1)', [i]);
            await new Promise((r) => setTimeout(r, 2));
            if (i % 2 === 0) await client.query('ROLLBACK');
            else await client.query('COMMIT');
          } finally {
            client.release();
          }
          return true;
        }
        const { rows } = await pool.query('SELECT length($1::text) + $2::int AS n', [big, i - big.length]);
        return rows[0].n === i;
      });
      expect((await Promise.all(work)).every(Boolean)).to.equal(true);
      const { rows } = await pool.query('SELECT n FROM embedded_probe ORDER BY n');
      // Only the odd multiples of three committed.
      expect(rows.map((r) => r.n)).to.deep.equal(Array.from({ length: 60 }, (_, i) => i).filter((i) => i % 3 === 0 && i % 2 === 1));
    } finally {
      await pool.end();
    }
  });

  it('rolls back what a vanished connection left open, and others carry on', async () => {
    const client = new pg.Client({ connectionString: embedded.url });
    client.on('error', () => undefined);
    await client.connect();
    await client.query('CREATE TABLE IF NOT EXISTS embedded_abandoned (n integer)');
    await client.query('BEGIN');
    await client.query('INSERT INTO embedded_abandoned (n) VALUES (1)');
    (client as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    const other = new pg.Client({ connectionString: embedded.url });
    await other.connect();
    const { rows } = await other.query('SELECT count(*)::int AS n FROM embedded_abandoned');
    await other.end();
    expect(rows[0].n).to.equal(0);
  });

  it('keeps the data across a stop and a start', async () => {
    const accounts = new TypeormAccountStore(dataSource);
    const user = await aUser(accounts, { handle: 'persisted', plan: 'pro' });
    await dataSource.destroy();
    await embedded.stop();
    expect(existsSync(record)).to.equal(false);
    expect(await until(() => !isAlive(embedded.pid), 5000)).to.equal(true);

    embedded = await attachOrStartEmbedded(dataDir);
    expect(embedded.attached).to.equal(false);
    dataSource = await openDataSource(embedded.url, { migrate: false });
    expect(await dataSource.showMigrations()).to.equal(false);
    expect(await new TypeormAccountStore(dataSource).findUserByHandle('persisted')).to.deep.equal(user);
  });

  it('stops with its parent, and a record the dead parent left behind does not block the next start', async () => {
    await dataSource.destroy();
    await embedded.stop();
    const module = new URL('../../adapters/pglite/embedded-postgres.js', import.meta.url).href;
    const script = `const { startEmbeddedPostgres } = await import(${JSON.stringify(module)});
      const db = await startEmbeddedPostgres(${JSON.stringify(dataDir)});
      process.stdout.write(JSON.stringify({ pid: db.pid }) + '\\n');
      setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
    const line = await new Promise<string>((resolve, reject) => {
      parent.stdout!.once('data', (data: Buffer) => resolve(data.toString()));
      parent.once('exit', (code) => reject(new Error(`parent exited early (${code})`)));
    });
    const childPid = JSON.parse(line).pid as number;
    expect(isAlive(childPid)).to.equal(true);
    parent.kill('SIGKILL');
    expect(await until(() => !isAlive(childPid), 10_000)).to.equal(true);
    expect(existsSync(record)).to.equal(true);

    embedded = await attachOrStartEmbedded(dataDir);
    expect(embedded.attached).to.equal(false);
    dataSource = await openDataSource(embedded.url);
    expect(await new TypeormAccountStore(dataSource).findUserByHandle('persisted')).to.not.equal(null);
  });

  it('treats a record naming a dead process as stale, and waits for a CLI\'s own database rather than sharing it', async () => {
    await dataSource.destroy();
    await embedded.stop();
    writeFileSync(record, JSON.stringify({ state: 'starting', ownerPid: 2 ** 22 + 12345, startedAt: new Date().toISOString() }));
    embedded = await attachOrStartEmbedded(dataDir, { role: 'cli' });
    expect(embedded.attached).to.equal(false);
    expect(JSON.parse(readFileSync(record, 'utf8'))).to.include({ role: 'cli', pid: embedded.pid });
    const waited = await attachOrStartEmbedded(dataDir, { role: 'server', waitMs: 300 }).then(
      () => null,
      (error: DomainError) => error,
    );
    expect(waited?.code).to.equal('unavailable');
    expect(waited?.message).to.contain(`is in use by process ${embedded.pid}`);
    dataSource = await openDataSource(embedded.url, { migrate: false });
  });
});
