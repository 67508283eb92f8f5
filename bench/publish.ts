/**
 * Publish benchmark: `publish_dashboard` with a 10 KB body over HTTP (the production server, startServer,
 * in a child process on a fresh PostgreSQL database; real bearer tokens minted through the OAuth use cases
 * for enough users that the 60/min publish limit is not what is measured; a new slug each call), loaded by
 * wrk at c20, side by side with `pgbench -c20` of the same writes (BEGIN; a 10 KB row; a small row;
 * COMMIT) on the same server, rounds interleaved, medians reported. Then a 5 MiB body with 8 in flight on a
 * fresh server process, after one uncounted pass of the same load, in rounds interleaved with a bare `pg`
 * INSERT of the same bytes through a pool of the server's size: p50 and its ratio to the INSERT's, the
 * server's peak RSS (VmHWM) and CPU per publish of the server and of the database backends. Prints every
 * round and updates the two publish rows of docs/benchmarks.md.
 *
 *   npm run bench:publish -- [--duration 8] [--rounds 3] [--connections 20] [--users 1500] [--big-requests 6] [--big-in-flight 8] [--only-big]
 *                              [--cold-big] [--pools default,20] [--off guesses,by-reference]
 *
 * `--pools` loads, in every round, one server per DATABASE_POOL_SIZE given ('default' is the setting's default);
 * `--off` adds, for each optimisation named, a server with it switched off (DASHPUB_AB_OFF): an A/B in the same
 * rounds. The first server is the one the rows compare with pgbench and the INSERT.
 *
 * While working on the server: BENCH_SERVER_NODE_ARGS gives it node flags (`--cpu-prof`, `--trace-gc`), BENCH_MEMLOG=1 makes
 * it print its memory peaks (V8 heap, Buffers, RSS) and CPU when the load ends.
 *
 * Needs wrk and pgbench (apt-get install -y wrk postgresql-client) and PostgreSQL where the tests find it
 * (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test); the bench database is
 * `dashpub_test_bench_publish_*`, dropped at the end.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { AccountStore } from '../application/ports/account-store.js';
import type { Settings } from '../application/ports/settings.js';
import { buildContainer } from '../shells/container.js';
import { loadSettings } from '../shells/config.js';
import { startServer } from '../shells/koa/server.js';
import { createTestDatabase, type TestDatabase } from '../test/support/database.js';
import { sql } from '../test/support/refresh-fixtures.js';
import { mintAccessToken } from '../test/support/tokens.js';
import { fmt, freePort, machineLine, median, option, page, percentile, procMemoryMiB, procStatFields, requireTool, runTool, runWrk, schedstat, updateLatestResult } from './support.js';

const DURATION_S = Number(option('duration', '8'));
const ROUNDS = Number(option('rounds', '3'));
const CONNECTIONS = Number(option('connections', '20'));
const USERS = Number(option('users', '1500'));
const BIG_IN_FLIGHT = Number(option('big-in-flight', '8'));
const BIG_REQUESTS_EACH = Number(option('big-requests', '6'));
/**
 * The 5 MiB part first runs its load once uncounted, as the 10 KB loads start with WARMUP_S of wrk (from the
 * 2026-11-26 09:00 UTC run on; `--cold-big` leaves it out). A fresh server's pool opens its connections during
 * the load, their backends compile `dashpub_publish`, and PostgreSQL plans each connection's first five writes
 * afresh, copying the 5 MiB value into each plan (`npm run bench:connections`, its row in docs/benchmarks.md).
 * With six publishes a connection, the database's CPU per counted publish was 30–33 ms that morning after the
 * 10 KB rounds, 21–23 ms with the warm-up. A running server's pool keeps its warm connections ten minutes
 * (POOL_IDLE_MS), so the cold start is not what its publishes cost.
 */
const WARM_UP_BIG = !process.argv.includes('--cold-big');
const WARMUP_S = 2;
/**
 * `--pools default,20`: one server per DATABASE_POOL_SIZE ('default': the setting's own default), each loaded in
 * every round, in turn; the first is the one the main table compares with pgbench and the 5 MiB part runs.
 */
const POOLS = option('pools', 'default').split(',').map((p) => p.trim()).filter(Boolean);
/** `--off guesses,by-reference`: one more server per optimisation, with it switched off, in every round. */
const OFF = option('off', '').split(',').map((p) => p.trim()).filter(Boolean);

/** A server the rounds load: its label, its DATABASE_POOL_SIZE and what it runs without. */
interface ServerKind {
  label: string;
  pool: string;
  off: string;
}

const SERVERS: ServerKind[] = [
  ...POOLS.map((pool) => ({ label: `pool ${pool}`, pool, off: '' })),
  ...OFF.map((off) => ({ label: `without ${off}`, pool: POOLS[0]!, off })),
];
/** `--only-big`: just the 5 MiB part (for working on it); its line is added to the docs too. */
const ONLY_BIG = process.argv.includes('--only-big');
const BIG_BYTES = 5 * 1024 * 1024;

interface Load {
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  /** CPU per operation while measured (not for the warm-ups nor dashpub's statements under pgbench). */
  cpu?: Cpu;
}

interface Cpu {
  serverMs: number;
  databaseMs: number;
  /** Shares of the wall time the server's event loop spent on a CPU and waiting for one (schedstat). */
  eventLoop?: { running: number; waiting: number };
}

// ---------------------------------------------------------------- server child: the production server

async function runServer(): Promise<void> {
  const settings: Settings = {
    ...loadSettings({}),
    databaseUrl: process.env.BENCH_DB!,
    redisUrl: null,
    host: '127.0.0.1',
    port: Number(process.env.BENCH_PORT),
    logLevel: 'warn',
    // BENCH_POOL: the server's DATABASE_POOL_SIZE (`--pools`); the default setting otherwise.
    ...(process.env.BENCH_POOL ? { databasePoolSize: Number(process.env.BENCH_POOL) } : {}),
  };
  const app = await buildContainer(settings, { role: 'server', refreshWorkers: false });
  const server = await startServer(settings, { container: app });
  process.send?.('ready');
  if (process.env.BENCH_MEMLOG) {
    // Where the server's memory is while loaded (working on the 5 MiB case): peaks of V8's heap, of memory
    // outside it (Buffers) and of RSS, printed when the load ends.
    const peak = { rss: 0, heapTotal: 0, heapUsed: 0, external: 0, arrayBuffers: 0 };
    const timer = setInterval(() => {
      const now = process.memoryUsage();
      for (const key of Object.keys(peak) as Array<keyof typeof peak>) peak[key] = Math.max(peak[key], now[key]);
    }, 20);
    process.on('disconnect', () => {
      clearInterval(timer);
      const cpu = process.cpuUsage();
      process.stdout.write(
        `server memory peaks (MiB): ${Object.entries(peak).map(([k, v]) => `${k} ${fmt(v / 2 ** 20)}`).join(', ')}; ` +
          `CPU since start: user ${fmt(cpu.user / 1000, 0)} ms, system ${fmt(cpu.system / 1000, 0)} ms, ` +
          `minor page faults ${process.resourceUsage().minorPageFault}\n`,
      );
    });
  }
  process.on('disconnect', () => {
    void server.close().finally(() => process.exit(0));
  });
}

async function startChild(db: string, { pool, off }: ServerKind): Promise<{ child: ChildProcess; port: number; stop(): Promise<void> }> {
  const port = await freePort();
  // BENCH_SERVER_NODE_ARGS: node flags for the server only (e.g. `--cpu-prof --trace-gc` while working on it).
  const execArgv = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = fork(fileURLToPath(import.meta.url), ['--server'], { env: { ...process.env, BENCH_DB: db, BENCH_PORT: String(port), DASHPUB_AB_OFF: off, ...(pool === 'default' ? {} : { BENCH_POOL: pool }) }, stdio: 'inherit', execArgv });
  await new Promise<void>((resolve, reject) => {
    child.once('message', (m) => (m === 'ready' ? resolve() : reject(new Error(String(m)))));
    child.once('exit', (code) => reject(new Error(`bench server exited ${code}`)));
  });
  return {
    child,
    port,
    async stop() {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.disconnect();
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    },
  };
}

// ---------------------------------------------------------------- clients

/** The JSON-RPC text of a publish_dashboard call with these arguments. */
const publishCall = (args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'publish_dashboard', arguments: args } });

function mcpPublish(port: number, token: string, args: Record<string, unknown>): Promise<{ status: number; body: string; ms: number }> {
  return mcpPost(port, token, [Buffer.from(publishCall(args))]);
}

/**
 * The 5 MiB publishes' requests, built without escaping and encoding 5 MiB on every call: all but the
 * body's first characters is escaped once, and each request sends a new beginning before it (so every
 * publish stores new bytes). Building each request whole cost the bench's own process ~15 ms of CPU per
 * publish, on the two cores the server and the database share.
 */
function bigRequests(body: string): (path: string, id: string) => Buffer[] {
  const fixed = 40;
  const rest = Buffer.from(JSON.stringify(body.slice(fixed)).slice(1, -1));
  return (path, id) => {
    const first = `<!--${id}-->${body.slice(0, fixed)}`.slice(0, fixed);
    // `body` is the last argument, so its text ends just before the call's closing `"}}}`.
    const head = publishCall({ path, body: first });
    const open = head.length - '"}}}'.length;
    return [Buffer.from(head.slice(0, open)), rest, Buffer.from(head.slice(open))];
  };
}

function mcpPost(port: number, token: string, payload: Buffer[]): Promise<{ status: number; body: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        hostname: '127.0.0.1',
        port,
        path: '/mcp',
        method: 'POST',
        agent: keepAlive,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'content-length': payload.reduce((sum, piece) => sum + piece.length, 0),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString(), ms: performance.now() - started }));
      },
    );
    req.on('error', reject);
    for (const piece of payload.slice(0, -1)) req.write(piece);
    req.end(payload.at(-1));
  });
}
const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 64 });

const published = (r: { status: number; body: string }) => r.status === 200 && !r.body.includes('"isError":true') && r.body.includes('"version_id":"');

function luaScript(tokens: string[], body: string): string {
  return `
local tokens = { ${tokens.map((t) => `"${t}"`).join(', ')} }
local body = [==[${JSON.stringify(body).slice(1, -1)}]==]
-- A new slug each call, in every wrk run: the run's own prefix comes as the script's argument.
run = "r"
function init(args) run = args[1] end
local threads = {}
counter = 0
errors = 0
function setup(thread) thread:set("id", #threads) table.insert(threads, thread) end
function request()
  counter = counter + 1
  local token = tokens[(counter * 7 + id * 13) % #tokens + 1]
  local payload = '{"jsonrpc":"2.0","id":' .. counter .. ',"method":"tools/call","params":{"name":"publish_dashboard","arguments":{"path":"' ..
    run .. '-' .. id .. '-' .. counter .. '","body":"' .. body .. '"}}}'
  return wrk.format("POST", "/mcp", { ["Authorization"] = "Bearer " .. token, ["Content-Type"] = "application/json",
    ["Accept"] = "application/json, text/event-stream" }, payload)
end
function response(status, headers, resbody)
  if status ~= 200 or string.find(resbody, '"isError":true', 1, true) then
    errors = errors + 1
    if errors == 1 then io.write("first error: " .. status .. " " .. string.sub(resbody, 1, 300) .. "\\n") end
  end
end
function done(summary, latency, requests)
  local e = 0
  for _, t in ipairs(threads) do e = e + t:get("errors") end
  io.write("publish-errors: " .. e .. "\\n")
end
`;
}

async function wrk(wrkPath: string, script: string, port: number, seconds: number, connections: number): Promise<Load> {
  const prefix = `r${randomBytes(4).toString('hex')}`;
  const run = await runWrk(wrkPath, [`-c${connections}`, `-d${seconds}s`, '--timeout', '10s', '-s', script, `http://127.0.0.1:${port}/mcp`, '--', prefix]);
  // The script counts refused publishes itself (an isError answer is a 200): its count, not wrk's non-2xx.
  const errors = /publish-errors: (\d+)/.exec(run.out);
  const firstError = /first error: (.*)/.exec(run.out);
  if (firstError) process.stdout.write(`wrk: ${firstError[1]}\n`);
  if (!errors) throw new Error(`cannot read wrk output:\n${run.out}`);
  return { perSecond: run.requestsPerSecond, p50Ms: run.p50Ms, p99Ms: run.p99Ms, errors: Number(errors[1]) + run.socketErrors };
}

async function pgbench(pgbenchPath: string, script: string, url: string, seconds: number, scratch: string, protocol: 'simple' | 'prepared' = 'simple'): Promise<Load> {
  const logDir = mkdtempSync(path.join(scratch, 'pgb-'));
  const out = await runTool(pgbenchPath, ['-n', `-M${protocol}`, `-c${CONNECTIONS}`, '-j2', `-T${seconds}`, '-f', script, '-l', `--log-prefix=${path.join(logDir, 'log')}`, url]);
  const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(out);
  const failed = /number of failed transactions: (\d+)/.exec(out);
  if (!tps) throw new Error(`cannot read pgbench output:\n${out}`);
  const latencies: number[] = [];
  for (const file of readdirSync(logDir)) {
    for (const line of readFileSync(path.join(logDir, file), 'utf8').split('\n')) {
      const fields = line.split(' ');
      if (fields.length >= 3) latencies.push(Number(fields[2]) / 1000);
    }
  }
  rmSync(logDir, { recursive: true, force: true });
  return { perSecond: Number(tps[1]), p50Ms: percentile(latencies, 0.5), p99Ms: percentile(latencies, 0.99), errors: failed ? Number(failed[1]) : 0 };
}

/** CPU seconds (user + system) a process has used, from /proc/PID/stat (fields 14 and 15, in clock ticks). */
function cpuSeconds(pid: number): number {
  try {
    const fields = procStatFields(pid);
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0; // the process is gone: its last sample stands
  }
}

/** PostgreSQL backends serving `database`: their command line names it ("postgres: [cluster: ]user db host(port) state"). */
function backendsOf(database: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
        return command.startsWith('postgres: ') && command.includes(` ${database} `);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/**
 * CPU (user + system, from /proc) used from now on by a server process (optional) and by the backends serving
 * `database`, sampled until `stop`: what the work costs, which the machine's load moves less than latencies.
 * Backends are sampled every 50 ms, so those of a pgbench run (which end with it) are counted too.
 */
function cpuMeter(database: string, serverPid?: number) {
  const serverBefore = serverPid === undefined ? 0 : cpuSeconds(serverPid);
  const loopBefore = serverPid === undefined ? null : schedstat(serverPid);
  const startedAt = performance.now();
  const backends = new Map<number, { first: number; last: number }>();
  const sample = (atStart = false) => {
    for (const pid of backendsOf(database)) {
      const now = cpuSeconds(pid);
      const seen = backends.get(pid);
      if (seen) seen.last = Math.max(seen.last, now);
      // A backend started after the first sample (a pool or pgbench connecting) counts from zero.
      else backends.set(pid, { first: atStart ? now : 0, last: now });
    }
  };
  sample(true);
  const timer = setInterval(sample, 50);
  return {
    /** Milliseconds of CPU per operation, for `operations` done since the meter started. */
    stop(operations: number): Cpu {
      clearInterval(timer);
      sample();
      const serverSeconds = serverPid === undefined ? 0 : cpuSeconds(serverPid) - serverBefore;
      const databaseSeconds = [...backends.values()].reduce((sum, b) => sum + b.last - b.first, 0);
      const cpu: Cpu = { serverMs: (serverSeconds * 1000) / operations, databaseMs: (databaseSeconds * 1000) / operations };
      const loopAfter = serverPid === undefined ? null : schedstat(serverPid);
      if (loopBefore && loopAfter) {
        const wallNs = (performance.now() - startedAt) * 1e6;
        cpu.eventLoop = { running: (loopAfter.runNs - loopBefore.runNs) / wallNs, waiting: (loopAfter.waitNs - loopBefore.waitNs) / wallNs };
      }
      return cpu;
    },
  };
}

/**
 * A CHECKPOINT before the 5 MiB part, so the 10 KB rounds' dirty pages are not written out during it. Not
 * before each 10 KB load (tried on 2026-11-25: 0.38–0.44× pgbench against 0.46–0.52× without, in the runs
 * of that day): after a checkpoint the first change to each page goes to the WAL as a full-page image, a
 * checkpoint every few seconds is far more often than a server's (minutes apart), and a publish changes
 * pages of six indexes keyed at random (ids, hashes, owners) against pgbench's two, so it pays more of them.
 */
async function checkpoint(url: string): Promise<void> {
  await sql(url, 'CHECKPOINT');
}

// ---------------------------------------------------------------- primary

async function main(): Promise<void> {
  const wrkPath = requireTool('wrk');
  const pgbenchPath = requireTool('pgbench', 'postgresql-client');
  const database = await createTestDatabase('dashpub_test_bench_publish');
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'dashpub-bench-publish-'));
  const servers: Array<{ stop(): Promise<void> }> = [];
  try {
    // Users and their tokens, through the real OAuth use cases; the schema comes with the container.
    const setup = await buildContainer({ ...loadSettings({}), databaseUrl: database.url, redisUrl: null, logLevel: 'warn' });
    const accounts = setup.container.get<AccountStore>(AccountStore);
    const tokens: string[] = [];
    for (let i = 0; i < USERS; i += 25) {
      const batch = await Promise.all(
        Array.from({ length: Math.min(25, USERS - i) }, async (_, j) => {
          const user = await accounts.createUser({ handle: `bench-${i + j}`, email: `bench-${i + j}@example.com`, passwordHash: null, plan: 'free' });
          return (await mintAccessToken(setup.container, { userId: user.id })).access_token;
        }),
      );
      tokens.push(...batch);
    }
    await setup.close();
    process.stdout.write(`minted ${tokens.length} tokens\n`);

    const body = page(10 * 1024);
    const luaFile = path.join(scratch, 'publish.lua');
    writeFileSync(luaFile, luaScript(tokens, body));
    const admin = new pg.Client({ connectionString: database.url });
    await admin.connect();
    await admin.query(`CREATE TABLE pgb_files (sha256 text PRIMARY KEY, bytes bytea NOT NULL, size integer NOT NULL)`);
    await admin.query(`CREATE TABLE pgb_versions (id uuid PRIMARY KEY, sha256 text NOT NULL, created_at timestamptz NOT NULL)`);
    await admin.end();
    const sqlFile = path.join(scratch, 'pgbench.sql');
    writeFileSync(
      sqlFile,
      [
        'BEGIN;',
        `INSERT INTO pgb_files (sha256, bytes, size) VALUES (md5(random()::text || clock_timestamp()::text), '${body}'::bytea, ${body.length});`,
        `INSERT INTO pgb_versions (id, sha256, created_at) VALUES (gen_random_uuid(), md5(random()::text), now());`,
        'COMMIT;',
        '',
      ].join('\n'),
    );

    // dashpub's own two statements of a publish (the read of the slug, then dashpub_publish with the bytes)
    // under pgbench: what the database alone allows this design, without HTTP, MCP or the token check.
    const ownFile = path.join(scratch, 'pgbench-dashpub.sql');
    const owner = `md5((:o)::text)::uuid`;
    writeFileSync(
      ownFile,
      [
        '\\set n random(1, 2000000000)',
        '\\set o random(1, 1000)',
        `SELECT d.id, d.xmin::text, v.files, a.slug, ad.slug FROM (VALUES (1)) AS one (x) LEFT JOIN dashboards d ON d.owner_id = ${owner} AND d.owner_kind = 'user' AND d.slug = 'p' || :n ` +
          `LEFT JOIN dashboard_versions v ON v.id = d.current_version_id AND v.dashboard_id = d.id LEFT JOIN dashboard_aliases a ON a.owner_id = ${owner} AND a.owner_kind = 'user' AND a.slug = 'p' || :n ` +
          'LEFT JOIN dashboards ad ON ad.id = a.dashboard_id;',
        `SELECT dashpub_publish('user', (${owner})::text, 'p' || :n, NULL, gen_random_uuid(), 'p', '{}', NULL, 'public', 'self', gen_random_uuid(), now(), now(), gen_random_uuid(), gen_random_uuid(), now(), ` +
          `'{"index.html": {"sha256": "x", "size": ${body.length}, "contentType": "text/html; charset=utf-8"}}', NULL, 20, ARRAY[md5(random()::text || clock_timestamp()::text)], ARRAY[${body.length}], '${body}'::bytea);`,
        '',
      ].join('\n'),
    );

    const byLabel = new Map<string, Awaited<ReturnType<typeof startChild>>>();
    for (const kind of ONLY_BIG ? [] : SERVERS) {
      const server = await startChild(database.url, kind);
      servers.push(server);
      byLabel.set(kind.label, server);
      const probe = await mcpPublish(server.port, tokens[0]!, { path: `probe-${kind.label.replace(/\W+/g, '-')}`, body });
      if (!published(probe)) throw new Error(`the probe publish failed: ${probe.status} ${probe.body.slice(0, 400)}`);
    }

    const rounds: Round[] = [];
    for (let round = 0; round < (ONLY_BIG ? 0 : ROUNDS); round++) {
      await pgbench(pgbenchPath, sqlFile, database.url, WARMUP_S, scratch);
      const baseCpu = cpuMeter(database.name);
      const base = await pgbench(pgbenchPath, sqlFile, database.url, DURATION_S, scratch);
      base.cpu = baseCpu.stop(base.perSecond * DURATION_S);
      const pools: Record<string, Load> = {};
      // Each round starts with another of the servers, so none is always the one after pgbench.
      for (let i = 0; i < SERVERS.length; i++) {
        const { label } = SERVERS[(i + round) % SERVERS.length]!;
        const server = byLabel.get(label)!;
        await wrk(wrkPath, luaFile, server.port, WARMUP_S, CONNECTIONS);
        const cpu = cpuMeter(database.name, server.child.pid!);
        const load = await wrk(wrkPath, luaFile, server.port, DURATION_S, CONNECTIONS);
        load.cpu = cpu.stop(load.perSecond * DURATION_S);
        pools[label] = load;
      }
      // Prepared, as the server sends both (named statements, the body as a binary parameter, not a literal to parse).
      const own = await pgbench(pgbenchPath, ownFile, database.url, DURATION_S, scratch, 'prepared');
      rounds.push({ pgbench: base, own, pools });
      process.stdout.write(
        `round ${round + 1}/${ROUNDS}: ${SERVERS.map(({ label }) => `publish (${label}) ${loadLine(pools[label]!)}`).join('; ')}; ` +
          `pgbench ${fmt(base.perSecond, 0)} tps p50 ${fmt(base.p50Ms)} p99 ${fmt(base.p99Ms)} ms (database CPU ms per transaction ${fmt(base.cpu.databaseMs, 3)}); dashpub's statements ${fmt(own.perSecond, 0)} tps p50 ${fmt(own.p50Ms)} p99 ${fmt(own.p99Ms)} ms\n`,
      );
    }
    for (const server of byLabel.values()) await server.stop();
    servers.length = 0;

    await checkpoint(database.url);
    const bigResult = await bigPart(database, tokens);
    report(rounds, bigResult);
  } finally {
    for (const server of servers) await server.stop();
    await database.drop();
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Counted 5 MiB passes per server and for the bare INSERT, after one uncounted pass each (`--big-rounds`). */
const BIG_ROUNDS = Number(option('big-rounds', '3'));

interface BigPass {
  latencies: number[];
  errors: number;
  cpu: Cpu;
}

/** What one kind of load gave over its counted passes. */
interface BigLoad {
  label: string;
  p50Ms: number;
  p99Ms: number;
  perSecond: number;
  errors: number;
  serverCpuMs: number;
  databaseCpuMs: number;
  peakRssMiB: number;
  idleMiB: number;
}

/** `lanes` × `each` calls of `one`, `lanes` at a time; their latencies and how many failed. */
async function inFlight(one: (lane: number, i: number) => Promise<{ ok: boolean; ms: number }>): Promise<{ latencies: number[]; errors: number }> {
  const latencies: number[] = [];
  let errors = 0;
  await Promise.all(
    Array.from({ length: BIG_IN_FLIGHT }, async (_, lane) => {
      for (let i = 0; i < BIG_REQUESTS_EACH; i++) {
        const r = await one(lane, i);
        if (!r.ok) errors++;
        latencies.push(r.ms);
      }
    }),
  );
  return { latencies, errors };
}

function summarise(label: string, passes: BigPass[], seconds: number, memory = { peakRssMiB: NaN, idleMiB: NaN }): BigLoad {
  const all = passes.flatMap((p) => p.latencies);
  return {
    label,
    p50Ms: median(all),
    p99Ms: percentile(all, 0.99),
    perSecond: all.length / seconds,
    errors: passes.reduce((sum, p) => sum + p.errors, 0),
    serverCpuMs: median(passes.map((p) => p.cpu.serverMs)),
    databaseCpuMs: median(passes.map((p) => p.cpu.databaseMs)),
    ...memory,
  };
}

/**
 * 5 MiB publishes, 8 in flight, on a fresh server process per kind (the first of the servers, then one per
 * `--off`), so each high-water mark is its own load's, and the same bytes stored by a bare `pg` INSERT
 * through a pool of the server's size into a table made like `files` (same compression): a pass of each in
 * turn per round, the order turning round by round, after one uncounted pass of each (WARM_UP_BIG).
 */
async function bigPart(database: TestDatabase, tokens: string[]): Promise<BigResult> {
  const text = page(BIG_BYTES);
  const bigRequest = bigRequests(text);
  const bytes = Buffer.from(text);
  const kinds = [SERVERS[0]!, ...SERVERS.filter((kind) => kind.off !== '')];
  const poolSize = SERVERS[0]!.pool === 'default' ? loadSettings({}).databasePoolSize : Number(SERVERS[0]!.pool);
  await sql(database.url, 'CREATE TABLE pgb_big (LIKE files INCLUDING ALL)');
  const insertPool = new pg.Pool({ connectionString: database.url, max: poolSize });
  const runs: Array<{ kind: ServerKind; server: Awaited<ReturnType<typeof startChild>>; idleMiB: number; peakRssMiB: number; passes: BigPass[]; seconds: number }> = [];
  const inserts = { passes: [] as BigPass[], seconds: 0 };
  let clientCpuMs = 0;
  const sampler = setInterval(() => {
    for (const run of runs) run.peakRssMiB = Math.max(run.peakRssMiB, procMemoryMiB(run.server.child.pid!, 'VmHWM'));
  }, 50);
  try {
    for (const kind of kinds) {
      const server = await startChild(database.url, kind);
      runs.push({ kind, server, idleMiB: procMemoryMiB(server.child.pid!, 'VmHWM'), peakRssMiB: 0, passes: [], seconds: 0 });
    }
    const publishPass = (run: (typeof runs)[number], pass: string) =>
      inFlight(async (lane, i) => {
        const r = await mcpPost(run.server.port, tokens[(lane * BIG_REQUESTS_EACH + i) % tokens.length]!, bigRequest(`big-${pass}-${lane}-${i}`, `${pass}-${lane}-${i}`));
        return { ok: published(r), ms: r.ms };
      });
    const insertPass = (pass: string) =>
      inFlight(async (lane, i) => {
        const fresh = Buffer.from(bytes);
        fresh.write(`<!--${pass}-${lane}-${i}-->`);
        const started = performance.now();
        const ok = await insertPool.query('INSERT INTO pgb_big (sha256, bytes, size) VALUES ($1, $2, $3)', [`${pass}-${lane}-${i}`, fresh, fresh.length]).then(() => true, () => false);
        return { ok, ms: performance.now() - started };
      });
    for (let round = WARM_UP_BIG ? -1 : 0; round < BIG_ROUNDS; round++) {
      const order = [...runs.map((run) => run as (typeof runs)[number] | null), null];
      for (let i = 0; i < order.length; i++) {
        const run = order[(i + Math.max(round, 0)) % order.length]!;
        const pass = `r${round + 1}-${run ? run.kind.label.replace(/\W+/g, '-') : 'insert'}`;
        const meter = cpuMeter(database.name, run?.server.child.pid);
        const startedAt = performance.now();
        const clientBefore = process.cpuUsage();
        const done = run ? await publishPass(run, pass) : await insertPass(pass);
        const seconds = (performance.now() - startedAt) / 1000;
        const client = process.cpuUsage(clientBefore);
        const cpu = meter.stop(done.latencies.length);
        process.stdout.write(`5 MiB ${run ? run.kind.label : 'bare INSERT'}, ${round < 0 ? 'warm-up' : `round ${round + 1}`}: p50 ${fmt(median(done.latencies))} ms, errors ${done.errors}, CPU per call: server ${fmt(cpu.serverMs)} ms, database ${fmt(cpu.databaseMs)} ms\n`);
        if (round < 0) continue;
        const target = run ?? inserts;
        target.passes.push({ ...done, cpu });
        target.seconds += seconds;
        if (run === runs[0]) clientCpuMs += (client.user + client.system) / 1000 / done.latencies.length / BIG_ROUNDS;
      }
    }
  } finally {
    clearInterval(sampler);
    for (const run of runs) run.peakRssMiB = Math.max(run.peakRssMiB, procMemoryMiB(run.server.child.pid!, 'VmHWM'));
    for (const run of runs) await run.server.stop();
    await insertPool.end();
  }
  const loads = runs.map((run) => summarise(run.kind.label, run.passes, run.seconds, run));
  const insert = summarise('bare INSERT', inserts.passes, inserts.seconds);
  for (const load of [...loads, insert]) {
    process.stdout.write(
      `5 MiB ×${BIG_IN_FLIGHT}, ${load.label}: p50 ${fmt(load.p50Ms)} ms (${fmt(load.p50Ms / insert.p50Ms, 2)}× the INSERT), p99 ${fmt(load.p99Ms)} ms, errors ${load.errors}, ` +
        `peak RSS ${fmt(load.peakRssMiB)} MiB; CPU per call: server ${fmt(load.serverCpuMs)} ms, database ${fmt(load.databaseCpuMs)} ms\n`,
    );
  }
  return { main: loads[0]!, variants: loads.slice(1), insert, clientCpuMs };
}

type BigResult = { main: BigLoad; variants: BigLoad[]; insert: BigLoad; clientCpuMs: number };

const cpuCell = (load: Load) => (load.cpu ? `${fmt(load.cpu.serverMs, 3)} / ${fmt(load.cpu.databaseMs, 3)}` : '');

type Round = { pgbench: Load; own: Load; pools: Record<string, Load> };

/** The round's load on the first server, the one the rows compare with pgbench. */
const mainLoad = (r: Round) => r.pools[SERVERS[0]!.label]!;

const loadLine = (load: Load) =>
  `${fmt(load.perSecond, 0)} req/s p50 ${fmt(load.p50Ms)} p99 ${fmt(load.p99Ms)} ms (errors ${load.errors}; CPU ms per publish: server ${fmt(load.cpu?.serverMs ?? NaN, 3)}, database ${fmt(load.cpu?.databaseMs ?? NaN, 3)}; event loop ${loopCell(load)})`;

/** The server's event loop during a load: % of the time on a CPU / % runnable but waiting for one. */
const loopText = (loop: Cpu['eventLoop']) => (loop ? `${fmt(loop.running * 100, 0)} % / ${fmt(loop.waiting * 100, 0)} %` : 'n/a');

const loopCell = (load: Load) => loopText(load.cpu?.eventLoop);

const loopMedian = (rounds: Round[]) => {
  const loops = rounds.map((r) => mainLoad(r).cpu?.eventLoop).filter((l) => l !== undefined);
  return loopText(loops.length === 0 ? undefined : { running: median(loops.map((l) => l.running)), waiting: median(loops.map((l) => l.waiting)) });
};

/** The 10 KB row's result: medians of the rounds, and each `--off` server's publishes per round against the first's. */
function tenKbResult(rounds: Round[]): string {
  const ratio = median(rounds.map((r) => mainLoad(r).perSecond / r.pgbench.perSecond));
  const p99 = median(rounds.map((r) => mainLoad(r).p99Ms / r.pgbench.p99Ms));
  const ab = SERVERS.slice(1).map(({ label }) => `${label}: ${fmt(median(rounds.map((r) => r.pools[label]!.perSecond / mainLoad(r).perSecond)), 2)}× the publishes/s`);
  return `**${fmt(ratio, 2)}×**, p99 **${fmt(p99, 2)}×**${ab.length > 0 ? `; side by side ${ab.join(', ')}` : ''}`;
}

/** The 5 MiB row's result: p50 against the bare INSERT's, peak RSS, CPU, and each `--off` server against the first. */
function bigResultCell({ main, variants, insert }: BigResult): string {
  const ab = variants.map((v) => `${v.label}: p50 ${fmt(v.p50Ms / main.p50Ms, 2)}×, server CPU ${fmt(v.serverCpuMs / main.serverCpuMs, 2)}×, RSS ${fmt(v.peakRssMiB)} MiB`);
  return (
    `p50 **${fmt(main.p50Ms)} ms** = **${fmt(main.p50Ms / insert.p50Ms, 2)}×** the INSERT's ${fmt(insert.p50Ms)} ms, RSS **${fmt(main.peakRssMiB)} MiB**; ` +
    `CPU per publish: server ${fmt(main.serverCpuMs)} ms, database ${fmt(main.databaseCpuMs)} ms (INSERT: ${fmt(insert.databaseCpuMs)} ms)${ab.length > 0 ? `; side by side ${ab.join(', ')}` : ''}`
  );
}

function report(rounds: Round[], big: BigResult): void {
  const heading = `### ${ONLY_BIG ? '5 MiB only, run' : 'Run'}${POOLS[0] === 'default' ? '' : ` (DATABASE_POOL_SIZE ${POOLS[0]})`} of ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const machine = `Machine: ${machineLine()}, load average ${fmt(os.loadavg()[0]!, 1)} at the end.`;
  const lines = [heading, '', machine, ''];
  if (rounds.length > 0) {
    const ours = median(rounds.map((r) => mainLoad(r).perSecond));
    const base = median(rounds.map((r) => r.pgbench.perSecond));
    const ourP99 = median(rounds.map((r) => mainLoad(r).p99Ms));
    const baseP99 = median(rounds.map((r) => r.pgbench.p99Ms));
    const own = median(rounds.map((r) => r.own.perSecond));
    lines.push(
      `${USERS} users; wrk -c${CONNECTIONS} against \`pgbench -c${CONNECTIONS} -j2\`, ${DURATION_S} s rounds after a ${WARMUP_S} s warm-up.`,
      '',
      "| round | publish req/s | p50 ms | p99 ms | errors | CPU ms per publish: server / database | event loop on a CPU / waiting for one | pgbench tps | p50 ms | p99 ms | database CPU ms per transaction | ratio | dashpub's 2 statements, pgbench tps |",
      '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
      ...rounds.map(
        (r, i) =>
          `| ${i + 1} | ${fmt(mainLoad(r).perSecond, 0)} | ${fmt(mainLoad(r).p50Ms)} | ${fmt(mainLoad(r).p99Ms)} | ${mainLoad(r).errors} | ${cpuCell(mainLoad(r))} | ${loopCell(mainLoad(r))} | ${fmt(r.pgbench.perSecond, 0)} | ${fmt(r.pgbench.p50Ms)} | ${fmt(r.pgbench.p99Ms)} | ${fmt(r.pgbench.cpu?.databaseMs ?? NaN, 3)} | ${fmt(mainLoad(r).perSecond / r.pgbench.perSecond, 2)}× | ${fmt(r.own.perSecond, 0)} (${fmt(r.own.perSecond / r.pgbench.perSecond, 2)}×) |`,
      ),
      `| **median** | **${fmt(ours, 0)}** | ${fmt(median(rounds.map((r) => mainLoad(r).p50Ms)))} | ${fmt(ourP99)} | | ${fmt(median(rounds.map((r) => mainLoad(r).cpu?.serverMs ?? NaN)), 3)} / ${fmt(median(rounds.map((r) => mainLoad(r).cpu?.databaseMs ?? NaN)), 3)} | ${loopMedian(rounds)} | **${fmt(base, 0)}** | ${fmt(median(rounds.map((r) => r.pgbench.p50Ms)))} | ${fmt(baseP99)} | ${fmt(median(rounds.map((r) => r.pgbench.cpu?.databaseMs ?? NaN)), 3)} | **${fmt(ours / base, 2)}×** | ${fmt(own, 0)} (${fmt(own / base, 2)}×) |`,
      '',
      `Publish is **${fmt(ours / base, 2)}× pgbench** (target ≥ 0.5×); its p99 is **${fmt(ourP99 / baseP99, 2)}× pgbench's** (target ≤ 2×).`,
      '',
    );
    if (SERVERS.length > 1) {
      // The same load on servers that differ only in DATABASE_POOL_SIZE, against the same round's pgbench.
      const cell = (r: Round, label: string) => {
        const l = r.pools[label]!;
        return `${fmt(l.perSecond, 0)} (${fmt(l.perSecond / r.pgbench.perSecond, 2)}×), p99 ${fmt(l.p99Ms)} (${fmt(l.p99Ms / r.pgbench.p99Ms, 2)}×), ${cpuCell(l)}`;
      };
      lines.push(
        `The same rounds by server (${SERVERS.map((k) => k.label).join(', ')}): publishes/s and its ratio to the round's pgbench, p99 ms and its ratio, CPU ms per publish of the server / the database.`,
        '',
        `| round | ${SERVERS.map((k) => k.label).join(' | ')} |`,
        `|---|${'---|'.repeat(SERVERS.length)}`,
        ...rounds.map((r, i) => `| ${i + 1} | ${SERVERS.map((k) => cell(r, k.label)).join(' | ')} |`),
        `| **median ratio** | ${SERVERS.map(({ label }) => `**${fmt(median(rounds.map((r) => r.pools[label]!.perSecond / r.pgbench.perSecond)), 2)}×**, p99 ${fmt(median(rounds.map((r) => r.pools[label]!.p99Ms / r.pgbench.p99Ms)), 2)}×`).join(' | ')} |`,
        '',
      );
    }
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  if (rounds.length > 0) updateLatestResult('publish', tenKbResult(rounds));
  updateLatestResult('publish-5mib', bigResultCell(big));
}

if (process.argv.includes('--server')) {
  runServer().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
} else {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
