import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CliIo } from '../../shells/cli/io.js';
import { runCli } from '../../shells/cli/program.js';
import { TEST_SECRET_KEY } from './settings.js';

/** The built `dashpub` entry point (dist/shells/cli/main.js). */
export const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shells/cli/main.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  /** Everything on stderr after the line saying which database the command opened. */
  stderr: string;
  /** That first line (shells/cli/which-database.ts), or null when the command printed none. */
  database: string | null;
}

/** Splits off the line every database command starts stderr with, so assertions on the rest stay exact. */
function splitDatabaseLine(stderr: string): { database: string | null; stderr: string } {
  const end = stderr.indexOf('\n');
  const first = end < 0 ? stderr : stderr.slice(0, end);
  const json = first.startsWith('{"database":') ? (JSON.parse(first) as { database: string }).database : null;
  const line = json ?? (/^(using|creating) the (embedded )?database /.test(first) ? first : null);
  return line === null ? { database: null, stderr } : { database: line, stderr: end < 0 ? '' : stderr.slice(end + 1) };
}

/**
 * The environment a test's command sees: this process's, with private warehouses allowed (the tests'
 * warehouses are on 127.0.0.1) and the tests' SECRET_KEY, unless `env` says otherwise; a key set to
 * undefined is left out, as a child process would not see it.
 */
function commandEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const merged: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', ALLOW_PRIVATE_WAREHOUSES: 'true', SECRET_KEY: TEST_SECRET_KEY, ...env };
  return Object.fromEntries(Object.entries(merged).filter(([, value]) => value !== undefined));
}

/**
 * Runs `dashpub args…` in this process (in `cwd` if given), through the same program the binary runs
 * (shells/cli/program.ts), with `stdin` fed to it (empty by default) and its output and exit code captured. Several seconds
 * faster per command than spawnDashpub, which starts node and loads the service each time.
 */
export async function runDashpub(env: NodeJS.ProcessEnv, args: string[], stdin = '', cwd = process.cwd()): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    env: commandEnv(env),
    cwd,
    stdin: (async function* () {
      if (stdin !== '') yield Buffer.from(stdin);
    })(),
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    exitCode: 0,
  };
  const code = await runCli(args, io);
  return { code, stdout, ...splitDatabaseLine(stderr) };
}

/**
 * Runs `dashpub args…` as operators do, in its own process (in `cwd` if given), with `stdin` fed to it:
 * the real binary, for each command family's process test and for what depends on the working directory.
 */
export function spawnDashpub(env: NodeJS.ProcessEnv, args: string[], stdin = '', cwd?: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: commandEnv(env), cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, ...splitDatabaseLine(stderr) }));
    child.stdin.end(stdin);
  });
}
