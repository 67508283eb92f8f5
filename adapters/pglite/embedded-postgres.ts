/**
 * The embedded default database (no DATABASE_URL): PGlite in a child process, reached over a loopback
 * socket with the ordinary `pg` driver. While it runs, `<dataDir>/embedded.json` records where, so a CLI
 * command attaches to the running server's database instead of opening the same files a second time
 * (two PGlite instances on one data directory would corrupt it).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, openSync, readFileSync, renameSync, unlinkSync, writeFileSync, closeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { DomainError } from '../../domain/errors.js';

export type EmbeddedRole = 'server' | 'cli';

export interface EmbeddedDatabase {
  /** A postgres:// URL for the `pg` driver. */
  url: string;
  /** The database process's pid. */
  pid: number;
  /** True when this process reuses a database another process started (stop() then only lets go). */
  attached: boolean;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  /** Recorded for attachers: only a server's database is reused; a CLI's is waited for. */
  role?: EmbeddedRole;
  /** How long to wait for another process that is starting or briefly holding the data. */
  waitMs?: number;
  /** Told when the database process this one started dies on its own (pino's calling convention). */
  logger?: { error(data: object, message: string): void };
}

interface RunningRecord {
  state: 'running';
  pid: number;
  ownerPid: number;
  role: EmbeddedRole;
  url: string;
  startedAt: string;
}

interface StartingRecord {
  state: 'starting';
  ownerPid: number;
  startedAt: string;
}

type EmbeddedRecord = RunningRecord | StartingRecord;

const RECORD = 'embedded.json';
const CHILD = fileURLToPath(new URL('./child.js', import.meta.url));
const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 15_000;
const STALE_START_MS = 180_000;

/** Reuses the live database recorded in dataDir, or starts one (waiting while another process starts). */
export async function attachOrStartEmbedded(dataDir: string, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
  const role = options.role ?? 'server';
  const deadline = Date.now() + (options.waitMs ?? 30_000);
  for (;;) {
    const found = await inspect(dataDir);
    if (found.status === 'free') {
      const started = await claimAndStart(dataDir, role, options.logger);
      if (started) return started;
      continue; // someone else claimed it between our look and our claim
    }
    if (found.status === 'attachable') {
      return { url: found.record.url, pid: found.record.pid, attached: true, stop: async () => {} };
    }
    if (Date.now() > deadline) {
      throw new DomainError(
        'unavailable',
        `the embedded database in ${resolve(dataDir)} is in use by process ${found.pid}; stop it, or set DATABASE_URL`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** Starts this process's own embedded database; refuses when another process holds dataDir. */
export async function startEmbeddedPostgres(dataDir: string, options: EmbeddedOptions = {}): Promise<EmbeddedDatabase> {
  const found = await inspect(dataDir);
  const started = found.status === 'free' ? await claimAndStart(dataDir, options.role ?? 'server') : null;
  if (!started) throw new DomainError('unavailable', `the embedded database in ${resolve(dataDir)} is already in use`);
  return started;
}

type Inspection =
  | { status: 'free' }
  | { status: 'attachable'; record: RunningRecord }
  | { status: 'busy'; pid: number };

async function inspect(dataDir: string): Promise<Inspection> {
  const path = join(dataDir, RECORD);
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { status: 'free' }; // no record: nobody runs the database here
  }
  const record = parseRecord(text);
  if (record?.state === 'running' && isDatabaseProcess(record.pid)) {
    if (record.role === 'server' && (await answers(record.url))) return { status: 'attachable', record };
    return { status: 'busy', pid: record.pid };
  }
  if (record?.state === 'starting' && isAlive(record.ownerPid) && Date.now() - Date.parse(record.startedAt) < STALE_START_MS) {
    return { status: 'busy', pid: record.ownerPid };
  }
  // Left behind by a process that died: drop it, unless it changed meanwhile.
  try {
    if (readFileSync(path, 'utf8') === text) unlinkSync(path);
  } catch {
    // Already gone.
  }
  return { status: 'free' };
}

/** Claims dataDir by creating the record exclusively, then starts the child; null when the claim lost. */
async function claimAndStart(dataDir: string, role: EmbeddedRole, logger?: EmbeddedOptions['logger']): Promise<EmbeddedDatabase | null> {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, RECORD);
  const starting: StartingRecord = { state: 'starting', ownerPid: process.pid, startedAt: new Date().toISOString() };
  try {
    const fd = openSync(path, 'wx');
    writeFileSync(fd, JSON.stringify(starting));
    closeSync(fd);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return null;
    throw error;
  }
  let child: ChildProcess | undefined;
  try {
    child = spawn(process.execPath, [CHILD, join(resolve(dataDir), 'pgdata')], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const port = await waitForReady(child);
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const running: RunningRecord = { state: 'running', pid: child.pid!, ownerPid: process.pid, role, url, startedAt: starting.startedAt };
    writeAtomically(path, JSON.stringify(running, null, 2));
    return own(child, path, url, logger);
  } catch (error) {
    child?.kill('SIGKILL');
    removeIfOurs(path);
    throw error;
  }
}

function waitForReady(child: ChildProcess): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const timer = setTimeout(() => fail(new Error('the embedded database did not start in time')), READY_TIMEOUT_MS);
    const fail = (error: Error) => {
      clearTimeout(timer);
      child.removeAllListeners('message');
      reject(error);
    };
    child.on('message', (message: { type?: string; port?: number; message?: string }) => {
      if (message.type === 'ready' && typeof message.port === 'number') {
        clearTimeout(timer);
        child.removeAllListeners('message');
        resolvePort(message.port);
      } else if (message.type === 'failed') {
        fail(new Error(`the embedded database failed to start: ${message.message}`));
      }
    });
    child.once('exit', (code, signal) => fail(new Error(`the embedded database exited before it was ready (${signal ?? `code ${code}`})`)));
    child.once('error', fail);
  });
}

function own(child: ChildProcess, recordPath: string, url: string, logger?: EmbeddedOptions['logger']): EmbeddedDatabase {
  // This process may end without calling stop(): the child notices the closed channel and stops.
  child.unref();
  child.channel?.unref();
  // On a hurried exit the record stays: it names a process that is closing, which the next starter
  // waits for and then finds stale, instead of opening files still in use.
  const onExit = () => child.kill('SIGTERM');
  process.once('exit', onExit);
  let stopping: Promise<void> | null = null;
  // Its own stderr reaches ours (stdio inherit); this line says what it means for the service.
  child.once('exit', (code, signal) => {
    if (!stopping) logger?.error({ pid: child.pid, code, signal }, 'the embedded database process exited unexpectedly; every query now fails until the service restarts');
  });
  return {
    url,
    pid: child.pid!,
    attached: false,
    stop: () =>
      (stopping ??= (async () => {
        process.removeListener('exit', onExit);
        if (child.exitCode === null && child.signalCode === null) {
          const exited = once(child, 'exit');
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
          await exited;
          clearTimeout(timer);
        }
        // Only now: until the files are closed, nobody else may open them.
        removeIfOurs(recordPath);
      })()),
  };
}

function parseRecord(text: string): EmbeddedRecord | null {
  try {
    const value = JSON.parse(text) as EmbeddedRecord;
    return value && (value.state === 'running' || value.state === 'starting') ? value : null;
  } catch {
    return null;
  }
}

function removeIfOurs(path: string): void {
  try {
    if (parseRecord(readFileSync(path, 'utf8'))?.ownerPid === process.pid) unlinkSync(path);
  } catch {
    // Already gone.
  }
}

function writeAtomically(path: string, text: string): void {
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, text);
  renameSync(temporary, path);
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Alive and, where /proc can tell, really our child script (a recycled pid is not). */
function isDatabaseProcess(pid: number): boolean {
  if (!isAlive(pid)) return false;
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('pglite');
  } catch {
    return true; // no /proc here: trust the pid, as before /proc was consulted
  }
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000, query_timeout: 5000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false; // a probe: not answering is the answer
  } finally {
    await client.end().catch(() => undefined); // a probe connection; its answer was already taken
  }
}
