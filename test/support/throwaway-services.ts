/**
 * Throwaway PostgreSQL and Redis servers for tests that break things (restart the database, kill
 * Redis, signal a server): each on a free port, with its files in a temporary directory, so the
 * machine's shared services (5432, 6379) are never touched.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { freePort } from './server.js';

const run = promisify(execFile);

/** The newest PostgreSQL's server binaries (initdb, pg_ctl). */
export function postgresBinDir(): string {
  const root = '/usr/lib/postgresql';
  const versions = readdirSync(root).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a));
  if (versions.length === 0) throw new Error(`no PostgreSQL server binaries under ${root}`);
  return path.join(root, versions[0]!, 'bin');
}

export interface ThrowawayPostgres {
  url: string;
  port: number;
  /** `pg_ctl restart -m fast`, resolving once the server accepts connections again. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Stops the server (immediately) and removes its files. */
  destroy(): Promise<void>;
}

export interface ThrowawayPostgresOptions {
  /** Variables added to the server's environment (the bench of PostgreSQL's allocator sets glibc's). */
  env?: Record<string, string>;
  /**
   * Keep PostgreSQL's durable defaults (fsync, synchronous commit, full-page writes), for benches that
   * compare servers; tests leave them off, which is faster and loses nothing a test needs.
   */
  durable?: boolean;
}

/**
 * initdb + pg_ctl into a fresh temporary directory. PostgreSQL refuses to run as root, so as root the
 * directory is handed to the `postgres` user and the tools run as that user (runuser).
 */
export async function startThrowawayPostgres(settings: ThrowawayPostgresOptions = {}): Promise<ThrowawayPostgres> {
  const bin = postgresBinDir();
  const dir = mkdtempSync(path.join(os.tmpdir(), 'dashpub-pg-'));
  const data = path.join(dir, 'data');
  const port = await freePort();
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    chownSync(dir, Number(stdout.trim()), Number(gid.trim()));
  }
  // Through env(1), so the variables reach pg_ctl, and the server it starts, however runuser treats the environment.
  const env = Object.entries(settings.env ?? {}).map(([name, value]) => `${name}=${value}`);
  const command = (name: string, args: string[]) => (env.length > 0 ? ['env', ...env, path.join(bin, name), ...args] : [path.join(bin, name), ...args]);
  const tool = (name: string, args: string[]) => {
    const [file, ...rest] = command(name, args);
    return asRoot ? run('runuser', ['-u', 'postgres', '--', file!, ...rest]) : run(file!, rest);
  };
  await tool('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync', '--no-instructions']);
  const relaxed = settings.durable ? '' : ' -c fsync=off -c synchronous_commit=off -c full_page_writes=off';
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1${relaxed} -c max_connections=200`;
  const pgCtl = (args: string[]) => tool('pg_ctl', ['-D', data, '-l', path.join(dir, 'server.log'), '-o', options, '-t', '60', ...args]);
  await pgCtl(['-w', 'start']);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  return {
    url,
    port,
    restart: async () => void (await pgCtl(['-w', '-m', 'fast', 'restart'])),
    stop: async () => void (await pgCtl(['-w', '-m', 'fast', 'stop'])),
    start: async () => void (await pgCtl(['-w', 'start'])),
    destroy: async () => {
      await pgCtl(['-w', '-m', 'immediate', 'stop']).catch(() => undefined); // already stopped is fine
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Whether the server answers a query right now. */
export async function postgresAnswers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1000 });
  client.on('error', () => undefined); // a probe: failure is the answer
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined); // a probe connection that may already be dead
  }
}

export interface ThrowawayRedis {
  url: string;
  port: number;
  /** SIGKILL: as a crash, nothing flushed. */
  kill(): Promise<void>;
  /** Starts it again on the same port (empty: no persistence). */
  start(): Promise<void>;
  destroy(): Promise<void>;
}

export async function startThrowawayRedis(): Promise<ThrowawayRedis> {
  const port = await freePort();
  let child: ChildProcess | null = null;
  const start = async () => {
    const started = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    let output = '';
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`redis-server did not start:\n${output}`)), 10_000);
      started.stdout!.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) {
          clearTimeout(timer);
          resolve();
        }
      });
      started.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`redis-server exited with ${code}:\n${output}`));
      });
    });
  };
  const kill = async () => {
    const current = child;
    child = null;
    if (!current || current.exitCode !== null) return;
    const exited = once(current, 'exit');
    current.kill('SIGKILL');
    await exited;
  };
  await start();
  return { url: `redis://127.0.0.1:${port}`, port, kill, start, destroy: kill };
}
