/** Helpers every benchmark shares: tools, ports, percentiles, machine line, docs sections. */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';

/** The tests' helper: a port free a moment ago on 127.0.0.1. */
export { freePort } from '../test/support/server.js';

export function requireTool(name: string, apt = name): string {
  const found = spawnSync('sh', ['-c', `command -v ${name} || ls /usr/sbin/${name} 2>/dev/null`], { encoding: 'utf8' }).stdout.trim().split('\n')[0];
  if (!found) throw new Error(`${name} is not installed: apt-get install -y ${apt}`);
  return found;
}


export function option(name: string, fallback: string): string {
  const args = process.argv.slice(2);
  const i = args.indexOf(`--${name}`);
  return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback;
}

/** The value at fraction q (0..1) of an ascending copy of `values`. */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

export const median = (values: readonly number[]) => percentile(values, 0.5);

export function machineLine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${os.availableParallelism()} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** Replaces (or appends) one `## heading` section of a markdown file. */
export function writeSection(file: string, heading: string, section: string): void {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const start = current.indexOf(`${heading}\n`);
  let next: string;
  if (start < 0) {
    next = `${current.trimEnd()}\n\n${section}`;
  } else {
    const after = current.indexOf('\n## ', start + heading.length);
    next = current.slice(0, start) + section + (after < 0 ? '' : current.slice(after + 1));
  }
  writeFileSync(file, next.endsWith('\n') ? next : `${next}\n`);
}

export const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '–');

/** Appends `text` at the end of one `## heading` section (created with `intro` if missing), keeping earlier runs. */
export function appendToSection(file: string, heading: string, intro: string, text: string): void {
  const current = existsSync(file) ? readFileSync(file, 'utf8') : '# Benchmarks\n';
  const start = current.indexOf(`${heading}\n`);
  let next: string;
  if (start < 0) next = `${current.trimEnd()}\n\n${heading}\n\n${intro}\n\n${text}`;
  else {
    const after = current.indexOf('\n## ', start + heading.length);
    const end = after < 0 ? current.length : after + 1;
    next = `${current.slice(0, end).trimEnd()}\n\n${text}\n${after < 0 ? '' : `\n${current.slice(end)}`}`;
  }
  writeFileSync(file, next.endsWith('\n') ? next : `${next}\n`);
}
