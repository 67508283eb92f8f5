import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
 * Runs `dashpub args…` as operators do, in its own process (in `cwd` if given), with `stdin` fed to it (empty by default).
 * Private warehouses are allowed unless `env` says otherwise: the tests' warehouses are on 127.0.0.1.
 */
export function runDashpub(env: NodeJS.ProcessEnv, args: string[], stdin = '', cwd?: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const childEnv = { ...process.env, LOG_LEVEL: 'warn', ALLOW_PRIVATE_WAREHOUSES: 'true', SECRET_KEY: TEST_SECRET_KEY, ...env };
    const child = spawn(process.execPath, [CLI, ...args], { env: childEnv, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, ...splitDatabaseLine(stderr) }));
    child.stdin.end(stdin);
  });
}
