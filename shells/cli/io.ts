import type { ProgressStream } from './progress.js';

/**
 * What one CLI run talks through: its environment, standard streams and exit code. The `dashpub` process
 * hands its own (processIo); tests hand buffers, so a command can run in-process exactly as operators run it.
 */
export interface CliIo {
  env: NodeJS.ProcessEnv;
  /** The directory relative paths (DATA_DIR, --out, --from) are taken from. */
  cwd: string;
  stdin: AsyncIterable<Buffer | string> & { isTTY?: boolean };
  stdout: ProgressStream;
  stderr: ProgressStream;
  /** The code the run ends with: 0 unless a command says otherwise. */
  exitCode: number;
}

export function processIo(): CliIo {
  return { env: process.env, cwd: process.cwd(), stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, exitCode: 0 };
}
