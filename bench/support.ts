/** Helpers every benchmark shares: tools, ports, percentiles, machine line, the docs table's rows. */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import os from 'node:os';

/** The tests' helper: a port free a moment ago on 127.0.0.1. */
export { freePort } from '../test/support/server.js';

/** Runs a command to its end: its stdout and stderr as one text, or a rejection carrying them when it fails. */
export function runTool(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${command} exited ${code}:\n${out}`))));
  });
}

/** What one wrk run's summary says; `out` is the whole text, for what a Lua script printed. */
export interface WrkRun {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** Responses wrk counted as non-2xx/3xx. */
  non2xx: number;
  /** Connect, read, write and timeout errors together. */
  socketErrors: number;
  out: string;
}

const MS_PER = { us: 0.001, ms: 1, s: 1000 };
const latencyMs = (out: string, percent: number): number | null => {
  const m = new RegExp(`\\s${percent}%\\s+([\\d.]+)(us|ms|s)\\b`).exec(out);
  return m ? Number(m[1]) * MS_PER[m[2] as keyof typeof MS_PER] : null;
};

/** `wrk -t1 --latency` with `args` (connections, duration, script, URL…), its summary read; every bench loads through this. */
export async function runWrk(wrkPath: string, args: string[]): Promise<WrkRun> {
  const out = await runTool(wrkPath, ['-t1', '--latency', ...args]);
  const rps = /Requests\/sec:\s+([\d.]+)/.exec(out);
  const p50 = latencyMs(out, 50);
  const p99 = latencyMs(out, 99);
  if (!rps || p50 === null || p99 === null) throw new Error(`cannot read wrk output:\n${out}`);
  const non2xx = /Non-2xx or 3xx responses:\s+(\d+)/.exec(out);
  const socket = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    requestsPerSecond: Number(rps[1]),
    p50Ms: p50,
    p99Ms: p99,
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    socketErrors: socket ? socket.slice(1).reduce((sum, n) => sum + Number(n), 0) : 0,
    out,
  };
}

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

/**
 * p50 and p99 (ms) of `iterations` calls of `read` one after another (c1), after 20 to warm up; `last` is what
 * the last warm-up call answered (a row count, say, for the bench to check what it timed).
 */
export async function timeCalls<T>(read: () => Promise<T>, iterations: number): Promise<{ p50: number; p99: number; last: T }> {
  let last!: T;
  for (let i = 0; i < 20; i++) last = await read();
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const started = performance.now();
    await read();
    times.push(performance.now() - started);
  }
  return { p50: median(times), p99: percentile(times, 0.99), last };
}

export function machineLine(): string {
  const cpu = os.cpus()[0]?.model ?? 'unknown CPU';
  return `${os.availableParallelism()} × ${cpu}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** docs/benchmarks.md: one table, a row per benchmark, each marked in its first cell by `<!-- bench:KEY -->`. */
export const BENCHMARKS_FILE = fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url));

/** The machine and time a result cell ends with: the CPU model's first words (from /proc/cpuinfo), the load average and the UTC minute. */
export function machineAndDate(): string {
  const model = (os.cpus()[0]?.model ?? 'unknown CPU').replace(/\((R|TM)\)/g, '').split(/\s+/).filter(Boolean).slice(0, 3).join(' ');
  return `${model}, load ${os.loadavg()[0]!.toFixed(1)}, ${new Date().toISOString().slice(0, 16).replace('T', ' ')}`;
}

/**
 * Puts `result` (followed by the machine and the date) in the last cell, "latest result", of the row marked
 * `<!-- bench:KEY -->` in docs/benchmarks.md, in place: a run replaces its row's result and adds nothing else
 * (the history is in git). A missing row is an error, not a new section.
 */
export function updateLatestResult(key: string, result: string, file = BENCHMARKS_FILE): void {
  const marker = `<!-- bench:${key} -->`;
  const lines = readFileSync(file, 'utf8').split('\n');
  const at = lines.findIndex((line) => line.startsWith('|') && line.includes(marker));
  if (at < 0) throw new Error(`${file} has no table row marked ${marker}`);
  const row = lines[at]!.trimEnd();
  const lastCell = row.lastIndexOf(' | ', row.length - 2);
  lines[at] = `${row.slice(0, lastCell)} | ${result.replaceAll('|', '/').replaceAll('\n', ' ')} (${machineAndDate()}) |`;
  writeFileSync(file, lines.join('\n'));
  process.stdout.write(`docs/benchmarks.md, row ${key}: ${result}\n`);
}

export const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '–');

/** A deterministic page of `size` ASCII bytes with nothing JSON, SQL or Lua would have to escape. */
export function page(size: number, seed = ''): string {
  const rows: string[] = [`<!doctype html><html><body><!--${seed}--><table>\n`];
  let length = rows[0]!.length;
  for (let i = 0; length < size; i++) {
    const row = `<tr><td>${i}</td><td>region-${i % 7}</td><td>${((i * 7919) % 100_000) / 100}</td></tr>\n`;
    rows.push(row);
    length += row.length;
  }
  return rows.join('').slice(0, size);
}

/**
 * The main thread of process `pid` (a server's event loop, a PostgreSQL backend; its thread id is the process
 * id) as the scheduler counts it: time on a CPU and time runnable but waiting for one, in nanoseconds. For the
 * publish bench's server the second is what the event loop loses to the database's backends and the load
 * generator on the two cores (docs/benchmarks.md, "Where the remaining cost is"); null where /proc has no schedstat.
 */
export function schedstat(pid: number): { runNs: number; waitNs: number } | null {
  try {
    const [run, wait] = readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ');
    return { runNs: Number(run), waitNs: Number(wait) };
  } catch {
    return null; // no schedstat here (not Linux, or the process is gone): the column reads n/a
  }
}

/**
 * The fields of /proc/PID/stat after the command name, which may hold spaces: index 0 is field 3 (the state),
 * so field N of proc(5) is at N - 3 (minflt 10 at 7, utime 14 at 11, stime 15 at 12). Throws if the process is gone.
 */
export function procStatFields(pid: number): string[] {
  return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
}

/** One memory line of /proc/PID/status (VmRSS now, VmHWM its peak), in MiB. */
export function procMemoryMiB(pid: number, line: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${line}:\\s+(\\d+) kB`).exec(status)![1]) / 1024;
}

/**
 * One JSON-RPC POST to a server's /mcp with a bearer token: its status and body. `agent: false` (the default)
 * opens a connection for the call; pass a keep-alive agent to time calls on one connection.
 */
export function postMcp(port: number, host: string, token: string, body: unknown, agent: http.Agent | false = false): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = http.request(
      {
        hostname: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent,
        headers: {
          host,
          authorization: `Bearer ${token}`,
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(data),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}
