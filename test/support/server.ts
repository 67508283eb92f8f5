import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { mkdtempSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Koa from 'koa';
import type { Settings } from '../../application/ports/settings.js';
import { loadSettings } from '../../shells/config.js';
import { request } from './http.js';
import { TEST_SECRET_KEY } from './settings.js';

export interface Listening {
  /** `http://127.0.0.1:<port>` */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** A port that was free a moment ago (for servers whose settings must name their own port up front). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

/** Serves one Koa middleware (or app) on 127.0.0.1 and a free port. */
export async function listen(handler: Koa.Middleware | Koa): Promise<Listening> {
  const app = handler instanceof Koa ? handler : new Koa().use(handler);
  return listenOn(app.callback());
}

/** A plain node:http request listener on a free port of 127.0.0.1. */
export async function listenOn(listener: http.RequestListener): Promise<Listening> {
  const server = http.createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * Settings for a server on `port` with every URL pointing at it (the local defaults of shells/config.ts, port included).
 * DATA_DIR defaults to a fresh temporary directory so a test never touches ./data.
 */
export function settingsForPort(port: number, env: NodeJS.ProcessEnv = {}): Settings {
  return loadSettings(serverEnv(port, env));
}

/** Private warehouses are allowed unless `env` says otherwise: the tests' warehouses are on 127.0.0.1. */
function serverEnv(port: number, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const dataDir = env.DATA_DIR ?? mkdtempSync(path.join(os.tmpdir(), 'dashpub-test-'));
  return { HOST: '127.0.0.1', LOG_LEVEL: 'warn', ALLOW_PRIVATE_WAREHOUSES: 'true', SECRET_KEY: TEST_SECRET_KEY, ...env, DATA_DIR: dataDir, PORT: String(port) };
}

export interface FullServer extends Listening {
  settings: Settings;
  /** Host header values of the three surfaces, for `request({ host })`. */
  hosts: { api: string; app: string; dashboard: (subdomain: string) => string };
}

const hostsOf = (settings: Settings) => ({
  api: new URL(settings.baseUrl).host,
  app: new URL(settings.appUrl).host,
  dashboard: (subdomain: string) => `${subdomain}.${settings.dashboardDomain}`,
});

/**
 * The real server (shells/koa/server.ts) in this process on a free port. `env` adds settings, e.g.
 * DATABASE_URL from createMigratedTestDatabase(), REDIS_URL, SERVICE_NAME.
 */
export async function startFullServer(env: NodeJS.ProcessEnv = {}): Promise<FullServer & { server: import('../../shells/koa/server.js').RunningServer }> {
  const { startServer } = await import('../../shells/koa/server.js');
  const port = await freePort();
  const settings = settingsForPort(port, env);
  const server = await startServer(settings);
  return { url: `http://127.0.0.1:${server.port}`, port: server.port, settings, hosts: hostsOf(settings), server, close: () => server.close() };
}

const CLI = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shells/cli/main.js');

/**
 * The real server as a separate `dashpub serve` process (compiled CLI), for scale-out tests: several
 * processes sharing one database and one Redis. Resolves once /healthz answers.
 */
export interface SpawnedServer extends FullServer {
  process: ChildProcess;
  /** Everything the process wrote so far (stdout, where its JSON log goes, and stderr). */
  output(): string;
  /** Resolves with the exit code (null when killed by a signal) once the process has ended. */
  exited: Promise<number | null>;
}

/** `execArgv`: Node options for the server process (the MCP benchmark's `--profile` passes `--cpu-prof`). */
export async function spawnServer(env: NodeJS.ProcessEnv = {}, timeoutMs = 30_000, execArgv: string[] = []): Promise<SpawnedServer> {
  const port = await freePort();
  const childEnv = serverEnv(port, env);
  const settings = loadSettings(childEnv);
  const child = spawn(process.execPath, [...execArgv, CLI, 'serve'], {
    env: { ...process.env, ...childEnv },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`dashpub serve exited with ${child.exitCode}:\n${output}`);
    const ok = await request({ url: `${url}/healthz`, host: hostsOf(settings).api, timeoutMs: 1000 }).then(
      (res) => res.status === 200,
      () => false,
    );
    if (ok) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`dashpub serve did not answer /healthz within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
  return {
    url,
    port,
    settings,
    hosts: hostsOf(settings),
    process: child,
    output: () => output,
    exited,
    async close() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(killer);
      }
    },
  };
}

/**
 * One MCP `tools/call` over plain HTTP to a full server (no SDK client: the spawned-process suites
 * count every request). The answer must be HTTP 200; gives the tool result's text and whether it is a
 * refusal. The timeout is generous: a process's first spec publish loads the chart renderer, and on a
 * loaded 2-core CI machine that alone has taken over the default 15 s.
 */
export async function callToolOverHttp(server: FullServer, token: string, name: string, args: Record<string, unknown>): Promise<{ text: string; isError: boolean }> {
  const res = await request({
    url: `${server.url}/mcp`,
    method: 'POST',
    host: server.hosts.api,
    headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
    timeoutMs: 60_000,
  });
  if (res.status !== 200) throw new Error(`tools/call ${name} answered HTTP ${res.status}: ${res.text.slice(0, 300)}`);
  const result = res.json().result as { content: Array<{ text: string }>; isError?: boolean };
  return { text: result.content[0]!.text, isError: result.isError === true };
}
