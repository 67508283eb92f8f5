import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TEST_SECRET_KEY } from './settings.js';

/** The built `dashpub` entry point (dist/shells/cli/main.js). */
export const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shells/cli/main.js');

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs `dashpub args…` as operators do, in its own process, with `stdin` fed to it (empty by default).
 * Private warehouses are allowed unless `env` says otherwise: the tests' warehouses are on 127.0.0.1.
 */
export function runDashpub(env: NodeJS.ProcessEnv, args: string[], stdin = ''): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const childEnv = { ...process.env, LOG_LEVEL: 'warn', ALLOW_PRIVATE_WAREHOUSES: 'true', SECRET_KEY: TEST_SECRET_KEY, ...env };
    const child = spawn(process.execPath, [CLI, ...args], { env: childEnv, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}
