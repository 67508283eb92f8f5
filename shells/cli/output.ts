import { isDomainError } from '../../domain/errors.js';
import type { CliIo } from './io.js';

export interface GlobalOptions {
  json?: boolean;
  /** Where this run reads and writes (shells/cli/context.ts adds it to every command's options). */
  io: CliIo;
}

/** Prints data as JSON with --json, else as the given human lines. */
export function print(options: GlobalOptions, data: unknown, human: () => string[]): void {
  if (options.json) options.io.stdout.write(`${JSON.stringify(data, null, 2)}\n`);
  else options.io.stdout.write(`${human().join('\n')}\n`);
}

export function table(rows: Array<Record<string, unknown>>, columns: string[]): string[] {
  if (rows.length === 0) return ['(none)'];
  const cell = (v: unknown) => (v === null || v === undefined ? '' : v instanceof Date ? v.toISOString() : String(v));
  const widths = columns.map((c) => Math.max(c.length, ...rows.map((r) => cell(r[c]).length)));
  const line = (values: string[]) => values.map((v, i) => v.padEnd(widths[i])).join('  ').trimEnd();
  return [line(columns.map((c) => c.toUpperCase())), ...rows.map((r) => line(columns.map((c) => cell(r[c]))))];
}

/**
 * Exit codes: 1 for a refusal of the request (bad input, not found, conflict), 2 for usage errors
 * (commander's), 3 when the service itself failed.
 */
export function reportFailure(err: unknown, options: GlobalOptions): number {
  const domain = isDomainError(err);
  const message = err instanceof Error ? err.message : String(err);
  if (options.json) options.io.stderr.write(`${JSON.stringify({ error: domain ? err.code : 'internal', message })}\n`);
  else options.io.stderr.write(`error: ${message}\n`);
  return domain ? 1 : 3;
}

export async function readStdin(io: CliIo): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
}
