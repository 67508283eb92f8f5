/**
 * Hosting benchmark: the dashboards host serving a 50 KB public dashboard with keep-alive, side by
 * side with nginx serving the same bytes from disk, both loaded by wrk on 127.0.0.1 in one run.
 * The service runs as one process and as one process per core (node:cluster: instances sharing one
 * port, the service's way of scaling out, on one machine, as nginx runs `worker_processes auto`); rounds are interleaved and the
 * median of each is reported. Writes requests/s, p99 and the ratios to the "Hosting" section of
 * docs/benchmarks.md.
 *
 *   npm run build && node dist/bench/hosting.js [--duration 8] [--rounds 3] [--connections 32] [--store postgres|memory] [--against DIR]
 *
 * `--store postgres` (the default when PostgreSQL answers on BENCH_DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/test) publishes into a fresh `dashpub_test_bench_*` database that
 * every worker reads through PostgresDashboardStore; `memory` gives each worker its own memory store
 * holding the same bytes. Needs the Debian packages `nginx` and `wrk` (apt-get install -y nginx wrk).
 *
 * `--against DIR` is an A/B in the same rounds: DIR is the `dist/` of another build (say of `main`, built in a
 * worktree of its own, with `node_modules` reachable from it), whose service is loaded the same ways in every
 * round; the run prints this build's requests/s over that one's, and writes nothing more to docs/benchmarks.md.
 */
import cluster, { type Worker } from 'node:cluster';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { PublishDashboard } from '../application/dashboards/publish-dashboard.js';
import { AccountStore } from '../application/ports/account-store.js';
import { ManageShareLinks } from '../application/sharing/manage-share-links.js';
import { ShareAccess } from '../application/sharing/share-access.js';
import type { Settings } from '../application/ports/settings.js';
import { buildContainer, type AppContainer } from '../shells/container.js';
import { loadSettings } from '../shells/config.js';
import { startServer } from '../shells/koa/server.js';
import { createTestDatabase, type TestDatabase } from '../test/support/database.js';
import { freePort, option, requireTool, runWrk, schedstat, updateLatestResult } from './support.js';

interface LoadResult {
  requestsPerSecond: number;
  p99Ms: number;
  errors: number;
  requests: number;
  /** The service's CPU time (its processes' main threads, kernel time included) per request, in µs; NaN for nginx. */
  cpuUsPerRequest: number;
}

const HANDLE = 'ada';
const SLUG = 'sales';
const WARMUP_S = 2;
const DURATION_S = Number(option('duration', '8'));
const ROUNDS = Number(option('rounds', '3'));
const CONNECTIONS = Number(option('connections', '32'));
/** The share case alternates this many short loads of each kind per round, so both see the same moments. */
const SHARE_SLICES = 3;
const SHARE_SLICE_S = Math.max(2, Math.round(DURATION_S / 2));
const BENCH_DATABASE_URL = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const AGAINST = option('against', '');

/** A deterministic 50 KB (51,200-byte) dashboard page. */
function dashboardPage(): Buffer {
  const rows: string[] = [];
  for (let i = 0; rows.join('').length < 51_200; i++) {
    rows.push(`<tr><td>${i}</td><td>region-${i % 7}</td><td>${((i * 7919) % 100_000) / 100}</td></tr>\n`);
  }
  // Its own preview tag keeps the served bytes the published ones (decision 0231), as nginx serves them.
  const html = `<!doctype html><html><head><meta charset="utf-8"><title>Sales</title><meta property="og:title" content="Sales"></head><body><table>\n${rows.join('')}`;
  const tail = '</table></body></html>\n';
  return Buffer.from(html.slice(0, 51_200 - tail.length) + tail, 'utf8');
}

/** A share link on the page and a session opened on it: the Cookie header a browser holding the link sends. */
async function shareCookie(app: AppContainer): Promise<string> {
  const created = await app.container.get(ManageShareLinks).create({ kind: 'operator' }, { owner: HANDLE }, SLUG, { label: 'bench' });
  const opened = await app.container.get(ShareAccess).open(HANDLE, created.token);
  if (opened.kind !== 'session') throw new Error(`the share link did not open (${opened.kind})`);
  return `dashpub_share_${SLUG}=${opened.token}`;
}

async function publishPage(app: AppContainer, page: Buffer): Promise<void> {
  const accounts = app.container.get<AccountStore>(AccountStore);
  const user = await accounts.createUser({ handle: HANDLE, email: 'ada@example.com', passwordHash: null, plan: 'free' });
  await app.container.get(PublishDashboard).execute(
    { userId: user.id, grantId: 'bench', lock: { kind: 'personal' }, scope: 'dashboards' },
    { path: SLUG, body: page.toString('utf8') },
  );
}

// ---------------------------------------------------------------- worker: one service process

async function runWorker(): Promise<void> {
  const settings: Settings = { ...loadSettings({}), databaseUrl: process.env.BENCH_DB ?? null, redisUrl: null, host: '127.0.0.1', port: Number(process.env.BENCH_PORT) };
  const memory = process.env.BENCH_STORE === 'memory';
  // The production server (startServer: fast path, Koa, all three surfaces, refresh workers).
  const app = await buildContainer(settings, { role: 'server', refreshWorkers: process.env.BENCH_NO_WORKERS !== '1', ...(memory ? { storage: 'memory' as const } : {}) });
  if (memory) await publishPage(app, readFileSync(process.env.BENCH_PAGE!));
  const server = await startServer(settings, { container: app });
  process.send?.('ready');
  process.on('disconnect', () => {
    void server.close().finally(() => process.exit(0));
  });
}

// ---------------------------------------------------------------- primary: set-up, load, report

function fetchOnce(port: number, host: string, urlPath: string, cookie?: string): Promise<{ status: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    http
      .get({ hostname: '127.0.0.1', port, path: urlPath, headers: { host, ...(cookie === undefined ? {} : { cookie }) }, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      })
      .on('error', reject);
  });
}

async function waitFor(port: number, host: string, urlPath: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetchOnce(port, host, urlPath)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`nothing answered on 127.0.0.1:${port}${urlPath}`);
}

async function wrk(wrkPath: string, url: string, host: string, seconds: number, cookie?: string): Promise<LoadResult> {
  const headers = cookie === undefined ? [] : ['-H', `Cookie: ${cookie}`];
  const run = await runWrk(wrkPath, [`-c${CONNECTIONS}`, `-d${seconds}s`, '-H', `Host: ${host}`, ...headers, url]);
  const requests = Number(/(\d+) requests in/.exec(run.out)?.[1] ?? Number.NaN);
  return { requestsPerSecond: run.requestsPerSecond, p99Ms: run.p99Ms, errors: run.non2xx + run.socketErrors, requests, cpuUsPerRequest: Number.NaN };
}

function startNginx(nginxPath: string, root: string, port: number): { child: ChildProcess; prefix: string } {
  const prefix = mkdtempSync(path.join(os.tmpdir(), 'dashpub-bench-nginx-'));
  mkdirSync(path.join(prefix, 'logs'));
  const conf = `
daemon off;
worker_processes auto;
pid ${prefix}/nginx.pid;
error_log stderr error;
events { worker_connections 1024; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 1000000;
  keepalive_timeout 65;
  types { text/html html; }
  default_type application/octet-stream;
  client_body_temp_path ${prefix}/body;
  proxy_temp_path ${prefix}/proxy;
  fastcgi_temp_path ${prefix}/fastcgi;
  uwsgi_temp_path ${prefix}/uwsgi;
  scgi_temp_path ${prefix}/scgi;
  server {
    listen 127.0.0.1:${port};
    root ${root};
    location / { etag on; }
  }
}
`;
  writeFileSync(path.join(prefix, 'nginx.conf'), conf);
  const child = spawn(nginxPath, ['-p', prefix, '-c', path.join(prefix, 'nginx.conf')], { stdio: ['ignore', 'inherit', 'inherit'] });
  return { child, prefix };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGQUIT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

interface ServiceCluster {
  port: number;
  /** Nanoseconds its workers' main threads have run so far (NaN without /proc schedstat). */
  runNs(): number;
  stop(): Promise<void>;
}

/** `build`: the `dist/` whose bench script the workers run (this one's by default). */
async function startService(workers: number, env: Record<string, string>, build = ''): Promise<ServiceCluster> {
  const port = await freePort();
  const exec = build ? path.resolve(build, 'bench', 'hosting.js') : fileURLToPath(import.meta.url);
  cluster.setupPrimary({ exec, args: ['--worker'], silent: false });
  const forked: Worker[] = [];
  await Promise.all(
    Array.from({ length: workers }, () => {
      const worker = cluster.fork({ ...env, BENCH_PORT: String(port) });
      forked.push(worker);
      return new Promise<void>((resolve, reject) => {
        worker.once('message', (m) => (m === 'ready' ? resolve() : reject(new Error(String(m)))));
        worker.once('exit', (code) => reject(new Error(`bench worker exited ${code}`)));
      });
    }),
  );
  return {
    port,
    runNs: () => forked.reduce((sum, w) => sum + (schedstat(w.process.pid!)?.runNs ?? Number.NaN), 0),
    async stop() {
      await Promise.all(
        forked.map(
          (w) =>
            new Promise<void>((resolve) => {
              if (w.isDead()) return resolve();
              w.once('exit', () => resolve());
              w.disconnect();
              setTimeout(() => w.kill('SIGKILL'), 5_000).unref();
            }),
        ),
      );
    },
  };
}

async function postgresAvailable(): Promise<boolean> {
  const client = new pg.Client({ connectionString: BENCH_DATABASE_URL, connectionTimeoutMillis: 2_000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}

const median = (results: LoadResult[]): LoadResult => {
  const sorted = [...results].sort((a, b) => a.requestsPerSecond - b.requestsPerSecond);
  return sorted[Math.floor(sorted.length / 2)]!;
};

/** A service load's last round: requests/s and the service's CPU per request. */
const shown = (results: LoadResult[]) => `${results.at(-1)!.requestsPerSecond.toFixed(0)} r/s (${results.at(-1)!.cpuUsPerRequest.toFixed(1)} µs CPU/req)`;

/**
 * The A/B of `--against`: this build over the other, round by round and their median, in requests/s and in
 * CPU per request (the service's own cost, which moves less than throughput when other work shares the cores).
 */
function reportAgainst(runs: Record<'single' | 'perCore' | 'againstSingle' | 'againstPerCore', LoadResult[]>, cores: number): void {
  const line = (name: string, mine: LoadResult[], theirs: LoadResult[], of: (r: LoadResult) => number) => {
    const values = mine.map((r, i) => of(r) / of(theirs[i]!));
    const sorted = [...values].sort((a, b) => a - b);
    return `${name} median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)}× (rounds ${values.map((v) => v.toFixed(2)).join(' / ')})`;
  };
  const both = (of: (r: LoadResult) => number) =>
    `${line(`${cores} processes`, runs.perCore, runs.againstPerCore, of)}; ${line('1 process', runs.single, runs.againstSingle, of)}`;
  process.stdout.write(
    `\nthis build ÷ ${AGAINST}, requests/s: ${both((r) => r.requestsPerSecond)}\n` +
      `this build ÷ ${AGAINST}, CPU per request: ${both((r) => r.cpuUsPerRequest)}\n`,
  );
}

export async function runHostingBench(): Promise<{ single: LoadResult; perCore: LoadResult; nginx: LoadResult; shared: LoadResult | null }> {
  const wrkPath = requireTool('wrk');
  const nginxPath = requireTool('nginx');
  const cores = os.availableParallelism();
  const page = dashboardPage();
  const settings = loadSettings({});
  const serviceHost = `${HANDLE}.${settings.dashboardDomain}`;
  const store = option('store', (await postgresAvailable()) ? 'postgres' : 'memory');

  const scratch = mkdtempSync(path.join(os.tmpdir(), 'dashpub-bench-'));
  const root = path.join(scratch, 'root');
  mkdirSync(path.join(root, SLUG), { recursive: true });
  writeFileSync(path.join(root, SLUG, 'index.html'), page);
  for (const p of [scratch, root, path.join(root, SLUG)]) chmodSync(p, 0o755);
  chmodSync(path.join(root, SLUG, 'index.html'), 0o644);
  const pageFile = path.join(scratch, 'page.html');
  writeFileSync(pageFile, page);

  let database: TestDatabase | null = null;
  // The share case needs one store all workers read: PostgreSQL only.
  let cookie: string | null = null;
  const env: Record<string, string> = { BENCH_STORE: store, BENCH_PAGE: pageFile };
  if (store === 'postgres') {
    process.env.DATABASE_URL = BENCH_DATABASE_URL;
    database = await createTestDatabase('dashpub_test_bench');
    const app = await buildContainer({ ...settings, databaseUrl: database.url, redisUrl: null });
    await publishPage(app, page);
    cookie = await shareCookie(app);
    await app.close();
    env.BENCH_DB = database.url;
  }

  const nginxPort = await freePort();
  const nginx = startNginx(nginxPath, root, nginxPort);
  const runs: Record<'single' | 'perCore' | 'nginx' | 'shared' | 'sharedPublic' | 'againstSingle' | 'againstPerCore', LoadResult[]> = {
    single: [],
    perCore: [],
    nginx: [],
    shared: [],
    sharedPublic: [],
    againstSingle: [],
    againstPerCore: [],
  };
  try {
    await waitFor(nginxPort, '127.0.0.1', `/${SLUG}/index.html`);
    const nginxUrl = `http://127.0.0.1:${nginxPort}/${SLUG}/index.html`;
    const digest = (b: Buffer) => createHash('sha256').update(b).digest('hex');
    if (digest((await fetchOnce(nginxPort, '127.0.0.1', `/${SLUG}/index.html`)).body) !== digest(page)) throw new Error('nginx serves other bytes');

    const loadService = async (workers: number, into: LoadResult[], build = '') => {
      const service = await startService(workers, env, build);
      try {
        await waitFor(service.port, serviceHost, `/${SLUG}`);
        if (digest((await fetchOnce(service.port, serviceHost, `/${SLUG}`)).body) !== digest(page)) throw new Error('the service serves other bytes');
        const url = `http://127.0.0.1:${service.port}/${SLUG}`;
        await wrk(wrkPath, url, serviceHost, WARMUP_S);
        const before = service.runNs();
        const load = await wrk(wrkPath, url, serviceHost, DURATION_S);
        into.push({ ...load, cpuUsPerRequest: (service.runNs() - before) / 1000 / load.requests });
        if (workers === 1 && cookie !== null && build === '') {
          // The same page through a share cookie, alternating with the public page on the same process.
          if (digest((await fetchOnce(service.port, serviceHost, `/${SLUG}`, cookie)).body) !== digest(page)) throw new Error('the share cookie serves other bytes');
          await wrk(wrkPath, url, serviceHost, WARMUP_S, cookie);
          const measured = async (withCookie?: string) => {
            const start = service.runNs();
            const result = await wrk(wrkPath, url, serviceHost, SHARE_SLICE_S, withCookie);
            return { ...result, cpuUsPerRequest: (service.runNs() - start) / 1000 / result.requests };
          };
          // Each pair's two loads take turns going first, so neither kind always meets the same moment.
          for (let i = 0; i < SHARE_SLICES; i++) {
            const open = runs.shared.length % 2 === 0 ? undefined : await measured();
            runs.shared.push(await measured(cookie));
            runs.sharedPublic.push(open ?? (await measured()));
          }
        }
      } finally {
        await service.stop();
      }
    };
    for (let round = 0; round < ROUNDS; round++) {
      await wrk(wrkPath, nginxUrl, '127.0.0.1', WARMUP_S);
      runs.nginx.push(await wrk(wrkPath, nginxUrl, '127.0.0.1', DURATION_S));
      // With --against, the two builds take turns going first.
      const ab = async (workers: number, mine: LoadResult[], theirs: LoadResult[]) => {
        if (AGAINST && round % 2 === 1) await loadService(workers, theirs, AGAINST);
        await loadService(workers, mine);
        if (AGAINST && round % 2 === 0) await loadService(workers, theirs, AGAINST);
      };
      await ab(cores, runs.perCore, runs.againstPerCore);
      await ab(1, runs.single, runs.againstSingle);
      process.stdout.write(
        `round ${round + 1}/${ROUNDS}: nginx ${runs.nginx.at(-1)!.requestsPerSecond.toFixed(0)} r/s, ` +
          `service×${cores} ${shown(runs.perCore)}, service×1 ${shown(runs.single)}` +
          (AGAINST ? `; against: ×${cores} ${shown(runs.againstPerCore)}, ×1 ${shown(runs.againstSingle)}` : '') +
          '\n',
      );
    }
  } finally {
    await stopChild(nginx.child);
    await database?.drop();
    rmSync(nginx.prefix, { recursive: true, force: true });
    rmSync(scratch, { recursive: true, force: true });
  }

  if (AGAINST) reportAgainst(runs, cores);
  const single = median(runs.single);
  const perCore = median(runs.perCore);
  const nginxResult = median(runs.nginx);
  const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
  const ratio = (r: LoadResult) => (r.requestsPerSecond / nginxResult.requestsPerSecond).toFixed(2);
  const row = (name: string, r: LoadResult) => `| ${name} | ${fmt(r.requestsPerSecond)} | ${fmt(r.p99Ms, 2)} ms | ${r.errors} | ${ratio(r)}× |\n`;
  const rounds = (results: LoadResult[]) => results.map((r) => fmt(r.requestsPerSecond)).join(' / ');
  const nginxVersion = spawnSync(nginxPath, ['-v'], { encoding: 'utf8' }).stderr.trim().replace('nginx version: nginx/', '');
  const section =
    `## Hosting\n\n` +
    `A ${fmt(page.length)}-byte public dashboard (\`/${SLUG}\`) over HTTP/1.1 keep-alive on 127.0.0.1, loaded by ` +
    `\`wrk -t1 -c${CONNECTIONS} -d${DURATION_S}s\` after a ${WARMUP_S} s warm-up; ${ROUNDS} interleaved rounds, median shown. ` +
    `${cores} cores (${os.cpus()[0]?.model.trim() ?? 'unknown CPU'}), Node ${process.version}, nginx ${nginxVersion} ` +
    `(Debian package, \`worker_processes auto\`, \`sendfile on\`, access log off, the same bytes from disk). ` +
    `The service is the production server (\`startServer\`: the dashboards fast path in front of the Koa app with all three surfaces, refresh workers running), on the ${store === 'postgres' ? 'PostgreSQL store (PostgresDashboardStore)' : 'memory store'}, ` +
    `as one process and as ${cores} processes (node:cluster, one per core, like nginx's workers). ` +
    `Run with \`npm run build && node dist/bench/hosting.js\`.\n\n` +
    `| server | requests/s | p99 latency | errors | vs nginx |\n|---|---:|---:|---:|---:|\n` +
    row(`dashpub, ${cores} processes`, perCore) +
    row('dashpub, 1 process', single) +
    row(`nginx, ${cores} workers`, nginxResult) +
    `\nTarget ≥ 0.6× nginx with a process per core, ≥ 0.45× from one: ${ratio(perCore)}× with a process per core, ${ratio(single)}× from a single process. ` +
    `Every round (requests/s): nginx ${rounds(runs.nginx)}; ${cores} processes ${rounds(runs.perCore)}; 1 process ${rounds(runs.single)}. ` +
    `Measured ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC.\n`;
  process.stdout.write(`\n${section}\n`);
  updateLatestResult('hosting', `**${ratio(perCore)}×** with a process per core, ${ratio(single)}× from one process`);
  const shared = runs.shared.length > 0 ? median(runs.shared) : null;
  if (shared) {
    // A pair's two loads ran back to back on one process: the median of the pairs' ratios cancels the drift
    // of a shared machine between pairs, which the ratio of two separate medians does not.
    const pairs = (of: (share: LoadResult, open: LoadResult) => number) => {
      const values = runs.shared.map((r, i) => of(r, runs.sharedPublic[i]!)).sort((a, b) => a - b);
      return values[Math.floor(values.length / 2)]!.toFixed(2);
    };
    const throughput = pairs((share, open) => share.requestsPerSecond / open.requestsPerSecond);
    const cpu = pairs((share, open) => open.cpuUsPerRequest / share.cpuUsPerRequest);
    const publicPage = median(runs.sharedPublic);
    // In run order; a star marks the pairs whose share load went first.
    const each = runs.shared.map((r, i) => `${(r.requestsPerSecond / runs.sharedPublic[i]!.requestsPerSecond).toFixed(2)}${i % 2 === 0 ? '*' : ''}`).join(' ');
    process.stdout.write(
      `share cookie: ${fmt(shared.requestsPerSecond)} r/s vs ${fmt(publicPage.requestsPerSecond)} public (medians); ` +
        `median of ${runs.shared.length} pairs: ${throughput}× the public page's requests/s, ${cpu}× its throughput per CPU; pairs ${each}\n`,
    );
    updateLatestResult('hosting-share', `**${throughput}×** the public page's requests/s, ${cpu}× per CPU second (median of ${runs.shared.length} back-to-back pairs on one process)`);
  }
  return { single, perCore, nginx: nginxResult, shared };
}

if (cluster.isWorker && process.argv.includes('--worker')) {
  runWorker().catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
} else if (process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1])) {
  runHostingBench().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
}
