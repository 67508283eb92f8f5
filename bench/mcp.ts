/**
 * MCP endpoint benchmark: the production server (`dashpub serve`, PostgreSQL, a real bearer token from
 * the OAuth flow) side by side with (i) a bare Koa 3 server answering precomputed bytes and (ii) the
 * official MCP SDK's stateless server (McpServer + StreamableHTTPServerTransport, a new server and
 * transport per request as the SDK's stateless example does) registering the same 18 tools with their
 * input schemas. Each server runs in its own process; wrk drives POSTs with keep-alive. Rounds are
 * interleaved (dashpub, koa, sdk, dashpub, …) and the median is reported; every round is appended to
 * the "MCP endpoint" section of docs/benchmarks.md.
 *
 *   npm run build && node dist/bench/mcp.js [--duration 8] [--rounds 3] [--connections 50] [--profile DIR] [--only tools/list]
 *
 * `--profile DIR` runs the dashpub server under `node --cpu-prof` and leaves its .cpuprofile in DIR when
 * the run ends (graceful shutdown writes it); `node dist/bench/cpu-profile-summary.js FILE` lists the top
 * functions by self and inclusive time.
 *
 * Cases: `tools/list` (all three) and `list_dashboards` with a page of 20 of 30 dashboards (dashpub vs
 * the Koa ceiling answering the same bytes). wrk asks for the same page over and over, so dashpub answers
 * it from its list cache; a second dashpub process with `LIST_CACHE_MB=0` (`uncached`) builds every answer,
 * which is what a page costs right after a change. Needs PostgreSQL on BENCH_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/test; a fresh `dashpub_test_bench_*` database is made and dropped)
 * and `wrk` (apt-get install -y wrk).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { AccountStore } from '../application/ports/account-store.js';
import { buildContainer } from '../shells/container.js';
import { loadSettings } from '../shells/config.js';
import { createTestDatabase, type TestDatabase } from '../test/support/database.js';
import { spawnServer } from '../test/support/server.js';
import { option, postMcp, requireTool, runWrk, updateLatestResult } from './support.js';
import { mintAccessToken } from '../test/support/tokens.js';

interface LoadResult {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
}

const DURATION_S = Number(option('duration', '8'));
const ROUNDS = Number(option('rounds', '3'));
const CONNECTIONS = Number(option('connections', '50'));
const PROFILE_DIR = option('profile', '');
/** `--only tools/list` or `--only list_dashboards`: one case (for profiling it alone); its rounds are added to the docs too. */
const ONLY = option('only', '');
const WARMUP_S = 2;
const BENCH_DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const SELF = fileURLToPath(import.meta.url);

const TOOLS_LIST = { jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} };
const LIST_DASHBOARDS = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'list_dashboards', arguments: { limit: 20 } } };

// ---------------------------------------------------------------- the comparison servers (child processes)

/** A bare Koa 3 app: reads the body, answers the precomputed bytes for the method asked (Buffers: Node's fastest body). */
async function runKoa(texts: Record<string, string>): Promise<void> {
  const { default: Koa } = await import('koa');
  const answers: Record<string, Buffer> = Object.fromEntries(Object.entries(texts).map(([key, text]) => [key, Buffer.from(text)]));
  const koa = new Koa();
  koa.use(async (ctx) => {
    const chunks: Buffer[] = [];
    for await (const chunk of ctx.req as AsyncIterable<Buffer>) chunks.push(chunk);
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { method: string; params?: { name?: string } };
    ctx.set('cache-control', 'no-store');
    ctx.type = 'application/json';
    ctx.body = answers[body.method === 'tools/call' ? `tools/call ${body.params?.name}` : body.method] ?? Buffer.from('{}');
  });
  await listenAndReport(http.createServer({ keepAliveTimeout: 65_000 }, koa.callback()));
}

/** The SDK's stateless Streamable HTTP example, with the 18 tools dashpub declares. */
async function runSdk(tools: Array<{ name: string; title: string; description: string; inputSchema: object; annotations: object }>): Promise<void> {
  const { McpServer } = await import('@modelcontextprotocol/sdk/server/mcp.js');
  const { StreamableHTTPServerTransport } = await import('@modelcontextprotocol/sdk/server/streamableHttp.js');
  const { fromJSONSchema } = await import('zod');
  const schemas = tools.map((tool) => ({ tool, input: fromJSONSchema(tool.inputSchema as never) }));
  const newServer = () => {
    const server = new McpServer({ name: 'service', version: '0.6.0' });
    for (const { tool, input } of schemas) {
      const config = { title: tool.title, description: tool.description, inputSchema: input, annotations: tool.annotations };
      server.registerTool(tool.name, config as never, (async () => ({ content: [{ type: 'text' as const, text: 'ok' }] })) as never);
    }
    return server;
  };
  const handler = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req as AsyncIterable<Buffer>) chunks.push(chunk);
    const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    const server = newServer();
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
  };
  await listenAndReport(
    http.createServer({ keepAliveTimeout: 65_000 }, (req, res) => {
      handler(req, res).catch((err: unknown) => {
        console.error(err);
        if (!res.headersSent) res.writeHead(500).end();
      });
    }),
  );
}

async function listenAndReport(server: http.Server): Promise<void> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  process.send?.({ port: (server.address() as AddressInfo).port });
  process.on('disconnect', () => process.exit(0));
}

// ---------------------------------------------------------------- primary: set-up, load, report

/** A forked comparison server; resolves with its port. */
function forkServer(role: 'koa' | 'sdk', payload: unknown, scratch: string): Promise<{ child: ChildProcess; port: number }> {
  const file = path.join(scratch, `${role}.json`);
  writeFileSync(file, JSON.stringify(payload));
  const child = fork(SELF, ['--role', role, '--payload', file], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve({ child, port: m.port }));
    child.once('exit', (code) => reject(new Error(`${role} server exited ${code}`)));
  });
}

function wrkScript(scratch: string, name: string, host: string, token: string, body: unknown): string {
  const file = path.join(scratch, `${name}.lua`);
  const headers = {
    Host: host,
    Authorization: `Bearer ${token}`,
    Accept: 'application/json, text/event-stream',
    'Content-Type': 'application/json',
  };
  const lua =
    `wrk.method = "POST"\n` +
    `wrk.body = ${JSON.stringify(JSON.stringify(body))}\n` +
    Object.entries(headers)
      .map(([k, v]) => `wrk.headers[${JSON.stringify(k)}] = ${JSON.stringify(v)}\n`)
      .join('');
  writeFileSync(file, lua);
  return file;
}

async function wrk(wrkPath: string, port: number, script: string, seconds: number): Promise<LoadResult> {
  const run = await runWrk(wrkPath, [`-c${CONNECTIONS}`, `-d${seconds}s`, '--timeout', '10s', '-s', script, `http://127.0.0.1:${port}/mcp`]);
  return { requestsPerSecond: run.requestsPerSecond, p50Ms: run.p50Ms, p99Ms: run.p99Ms, errors: run.non2xx + run.socketErrors };
}

const median = (results: LoadResult[]): LoadResult => [...results].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond)[Math.floor(results.length / 2)]!;

type Case = 'tools/list' | 'list_dashboards';
type Server = 'dashpub' | 'uncached' | 'koa' | 'sdk';

export async function runMcpBench(): Promise<void> {
  const wrkPath = requireTool('wrk');
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'dashpub-bench-mcp-'));
  process.env.DATABASE_URL = BENCH_DATABASE_URL;
  const database: TestDatabase = await createTestDatabase('dashpub_test_bench');
  const children: ChildProcess[] = [];
  let dashpub: Awaited<ReturnType<typeof spawnServer>> | null = null;
  let uncached: Awaited<ReturnType<typeof spawnServer>> | null = null;
  const runs = new Map<string, LoadResult[]>();
  try {
    // The production server as operators run it; the admin container stands in for the sign-in page.
    const execArgv = PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(PROFILE_DIR)}`] : [];
    dashpub = await spawnServer({ DATABASE_URL: database.url, REDIS_URL: '', LOG_LEVEL: 'warn' }, 120_000, execArgv);
    uncached = await spawnServer({ DATABASE_URL: database.url, REDIS_URL: '', LOG_LEVEL: 'warn', LIST_CACHE_MB: '0' }, 120_000);
    const admin = await buildContainer({ ...loadSettings({ SECRET_KEY: 'dashpub-test-secret-key' }), databaseUrl: database.url, redisUrl: null }, { role: 'cli', refreshWorkers: false });
    const user = await admin.container.get<AccountStore>(AccountStore).createUser({ handle: 'ada', email: 'ada@example.com', passwordHash: null, plan: 'free' });
    const token = (await mintAccessToken(admin.container, { userId: user.id, lock: { kind: 'personal' } })).access_token;
    await admin.close();

    const host = dashpub.hosts.api;
    for (let i = 0; i < 30; i++) {
      const published = await postMcp(dashpub.port, host, token, {
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'publish_dashboard', arguments: { path: `report-${String(i).padStart(2, '0')}`, body: `<h1>Report ${i}</h1><p>${'x'.repeat(200)}</p>`, tags: ['bench'] } },
      });
      if (published.status !== 200 || published.text.includes('"isError":true')) throw new Error(`publish failed: ${published.text}`);
    }
    const toolsList = await postMcp(dashpub.port, host, token, TOOLS_LIST);
    const listPage = await postMcp(dashpub.port, host, token, LIST_DASHBOARDS);
    const tools = (JSON.parse(toolsList.text) as { result: { tools: Array<{ name: string; title: string; description: string; inputSchema: object; annotations: object }> } }).result.tools;
    const listed = (JSON.parse(listPage.text) as { result: { structuredContent: { dashboards: unknown[] } } }).result.structuredContent.dashboards;
    if (tools.length !== 18 || listed.length !== 20) throw new Error(`unexpected set-up: ${tools.length} tools, ${listed.length} dashboards listed`);
    const uncachedPage = await postMcp(uncached.port, uncached.hosts.api, token, LIST_DASHBOARDS);
    const uncachedListed = (JSON.parse(uncachedPage.text) as { result: { structuredContent: { dashboards: unknown[] } } }).result.structuredContent.dashboards;
    if (uncachedListed.length !== 20) throw new Error(`the uncached server lists ${uncachedListed.length} dashboards`);

    const koa = await forkServer('koa', { 'tools/list': toolsList.text, 'tools/call list_dashboards': listPage.text }, scratch);
    const sdk = await forkServer('sdk', tools, scratch);
    children.push(koa.child, sdk.child);
    const sdkCheck = await postMcp(sdk.port, '127.0.0.1', token, TOOLS_LIST);
    if (sdkCheck.status !== 200 || !sdkCheck.text.includes('"list_dashboards"')) throw new Error(`SDK server answers: ${sdkCheck.status} ${sdkCheck.text.slice(0, 200)}`);

    const ports: Record<Server, number> = { dashpub: dashpub.port, uncached: uncached.port, koa: koa.port, sdk: sdk.port };
    const plan = ([
      ['tools/list', ['dashpub', 'koa', 'sdk']],
      ['list_dashboards', ['dashpub', 'uncached', 'koa']],
    ] as Array<[Case, Server[]]>).filter(([name]) => !ONLY || name === ONLY);
    const scripts = new Map<Case, string>([
      ['tools/list', wrkScript(scratch, 'tools-list', host, token, TOOLS_LIST)],
      ['list_dashboards', wrkScript(scratch, 'list-dashboards', host, token, LIST_DASHBOARDS)],
    ]);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, servers] of plan) {
        for (const server of servers) {
          await wrk(wrkPath, ports[server], scripts.get(name)!, WARMUP_S);
          const result = await wrk(wrkPath, ports[server], scripts.get(name)!, DURATION_S);
          const key = `${name} ${server}`;
          runs.set(key, [...(runs.get(key) ?? []), result]);
          process.stdout.write(`round ${round + 1}/${ROUNDS} ${key}: ${result.requestsPerSecond.toFixed(0)} r/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, errors ${result.errors}\n`);
        }
      }
    }
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await dashpub?.close();
    await uncached?.close();
    await database.drop();
    rmSync(scratch, { recursive: true, force: true });
  }

  const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const med = (key: string) => median(runs.get(key)!);
  const ratio = (a: string, b: string) => (med(a).requestsPerSecond / med(b).requestsPerSecond).toFixed(2);
  const when = new Date().toISOString().slice(0, 16).replace('T', ' ');
  const machine = `${os.availableParallelism()} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), load average ${os.loadavg()[0]!.toFixed(1)} at the end, Node ${process.version}`;
  let text =
    `### Run of ${when} UTC\n\n${machine}; \`wrk -t1 -c${CONNECTIONS} -d${DURATION_S}s\` after a ${WARMUP_S} s warm-up, ${ROUNDS} interleaved rounds.\n\n` +
    `| case | server | round | requests/s | p50 | p99 | errors |\n|---|---|---:|---:|---:|---:|---:|\n`;
  for (const [key, results] of runs) {
    const [name, server] = key.split(' ');
    results.forEach((r, i) => (text += `| ${name} | ${server} | ${i + 1} | ${fmt(r.requestsPerSecond)} | ${fmt(r.p50Ms, 2)} ms | ${fmt(r.p99Ms, 2)} ms | ${r.errors} |\n`));
  }
  const medians: string[] = [];
  if (runs.has('tools/list dashpub')) {
    medians.push(
      `tools/list dashpub ${fmt(med('tools/list dashpub').requestsPerSecond)}, Koa ${fmt(med('tools/list koa').requestsPerSecond)}, SDK ${fmt(med('tools/list sdk').requestsPerSecond)} requests/s ` +
        `(dashpub ${ratio('tools/list dashpub', 'tools/list koa')}× the Koa ceiling, target ≥ 0.8; ${ratio('tools/list dashpub', 'tools/list sdk')}× the SDK, target ≥ 20).`,
    );
  }
  if (runs.has('list_dashboards dashpub')) {
    medians.push(
      `list_dashboards dashpub ${fmt(med('list_dashboards dashpub').requestsPerSecond)}, Koa ${fmt(med('list_dashboards koa').requestsPerSecond)} requests/s ` +
        `(${ratio('list_dashboards dashpub', 'list_dashboards koa')}× the Koa ceiling, target ≥ 0.3); without the list cache ${fmt(med('list_dashboards uncached').requestsPerSecond)} ` +
        `(${ratio('list_dashboards uncached', 'list_dashboards koa')}× the ceiling).`,
    );
  }
  text += `\nMedians: ${medians.join(' ')}\n`;
  process.stdout.write(`\n${text}\n`);
  if (runs.has('tools/list dashpub')) {
    updateLatestResult('mcp-tools-list', `**${ratio('tools/list dashpub', 'tools/list koa')}×** Koa, **${ratio('tools/list dashpub', 'tools/list sdk')}×** SDK`);
  }
  if (runs.has('list_dashboards dashpub')) {
    updateLatestResult('mcp-list-dashboards', `**${ratio('list_dashboards dashpub', 'list_dashboards koa')}×** from the list cache; ${ratio('list_dashboards uncached', 'list_dashboards koa')}× built every time`);
  }
}

const role = option('role', '');
if (role === 'koa' || role === 'sdk') {
  const payload: unknown = JSON.parse(readFileSync(option('payload', ''), 'utf8'));
  (role === 'koa' ? runKoa(payload as Record<string, string>) : runSdk(payload as never)).catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
} else if (process.argv[1] && SELF === path.resolve(process.argv[1])) {
  runMcpBench().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
