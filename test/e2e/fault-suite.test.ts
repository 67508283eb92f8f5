import { asPublished } from '../support/hosting-fixtures.js';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { DataSource } from 'typeorm';
import { AccountStore } from '../../application/ports/account-store.js';
import { buildContainer, type AppContainer } from '../../shells/container.js';
import { request } from '../support/http.js';
import { freePort, spawnServer, type SpawnedServer } from '../support/server.js';
import { testSettings } from '../support/settings.js';
import { postgresAnswers, startThrowawayPostgres, startThrowawayRedis, type ThrowawayPostgres, type ThrowawayRedis } from '../support/throwaway-services.js';
import { mintAccessToken } from '../support/tokens.js';
import { SERVICE_UNAVAILABLE_TEXT } from '../../shells/koa/mcp/tool-registry.js';
import { aUser } from '../support/mothers.js';

const SECRET_KEY = 'fault-suite-secret';

type Outcome =
  | { kind: 'ok'; text: string }
  /** An `isError` result: a clean refusal the caller can read. */
  | { kind: 'refused'; text: string }
  /** HTTP 503 with retry-after: a clean "try again shortly". */
  | { kind: 'unavailable' }
  /** The connection was refused or cut (only acceptable from an instance that was told to stop). */
  | { kind: 'unreachable'; message: string }
  /** Anything else: a 500, a JSON-RPC internal error, a 503 without retry-after, a timeout. */
  | { kind: 'unclean'; detail: string };

interface User {
  handle: string;
  token: string;
}

async function callTool(server: SpawnedServer, token: string, name: string, args: Record<string, unknown>): Promise<Outcome> {
  let res;
  try {
    res = await request({
      url: `${server.url}/mcp`,
      method: 'POST',
      host: server.hosts.api,
      headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } },
      timeoutMs: 20_000,
    });
  } catch (err) {
    const message = err instanceof Error ? err.message : String(err);
    if (/timed out/.test(message)) return { kind: 'unclean', detail: `hang: ${message}` };
    return { kind: 'unreachable', message };
  }
  if (res.status === 503) return res.headers['retry-after'] ? { kind: 'unavailable' } : { kind: 'unclean', detail: `503 without retry-after: ${res.text}` };
  if (res.status !== 200) return { kind: 'unclean', detail: `HTTP ${res.status}: ${res.text.slice(0, 300)}` };
  const body = res.json<{ result?: { content: Array<{ text: string }>; isError?: boolean }; error?: { message: string } }>();
  if (!body.result) return { kind: 'unclean', detail: `JSON-RPC error: ${JSON.stringify(body.error)}` };
  const text = body.result.content[0]?.text ?? '';
  return body.result.isError ? { kind: 'refused', text } : { kind: 'ok', text };
}

interface Publish {
  user: User;
  server: SpawnedServer;
  slug: string;
  body: string;
  outcome?: Outcome;
  startedAt?: number;
  endedAt?: number;
}

/**
 * Runs the publishes `concurrency` at a time, in order. A caller that got an error waits a moment
 * before its next call, as a client does; `onProgress` sees the count of finished calls.
 */
async function burst(publishes: Publish[], concurrency: number, onProgress: (finished: number) => void = () => undefined): Promise<void> {
  let next = 0;
  let finished = 0;
  const worker = async () => {
    while (next < publishes.length) {
      const job = publishes[next++]!;
      job.startedAt = Date.now();
      job.outcome = await callTool(job.server, job.user.token, 'publish_dashboard', { path: job.slug, body: job.body });
      job.endedAt = Date.now();
      onProgress(++finished);
      if (job.outcome.kind !== 'ok') await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
}

const kinds = (publishes: Publish[]) => {
  const counts: Record<string, number> = {};
  for (const p of publishes) counts[p.outcome!.kind] = (counts[p.outcome!.kind] ?? 0) + 1;
  return counts;
};

/**
 * The service through faults, on its own PostgreSQL cluster and Redis (never the machine's shared
 * ones): two `dashpub serve` processes while the database restarts, Redis dies, the database is
 * down, and one instance is told to stop mid-burst. The measured numbers go to its row of docs/benchmarks.md.
 */
describe('e2e: faults on two instances (throwaway PostgreSQL and Redis)', function () {
  this.timeout(60_000);
  let db: ThrowawayPostgres;
  let redis: ThrowawayRedis;
  let servers: SpawnedServer[] = [];
  let admin: AppContainer;
  let userCount = 0;

  before(async function () {
    this.timeout(120_000);
    [db, redis] = await Promise.all([startThrowawayPostgres(), startThrowawayRedis()]);
    admin = await buildContainer(testSettings({ databaseUrl: db.url, secretKey: SECRET_KEY }), { role: 'cli', refreshWorkers: false });
    const env = async () => ({ DATABASE_URL: db.url, REDIS_URL: redis.url, SECRET_KEY, ADMIN_PORT: String(await freePort()), LOG_LEVEL: 'warn' });
    servers = await Promise.all([spawnServer(await env(), 60_000), spawnServer(await env(), 60_000)]);
  });

  after(async function () {
    this.timeout(60_000);
    await Promise.all(servers.map((server) => server.close()));
    await admin?.close().catch(() => undefined); // its pool may have seen the database go away; the files are removed next
    await redis?.destroy();
    await db?.destroy();
  });

  async function newUsers(count: number): Promise<User[]> {
    const accounts = admin.container.get<AccountStore>(AccountStore);
    const users: User[] = [];
    for (let i = 0; i < count; i++) {
      const handle = `fault-${++userCount}`;
      const user = await aUser(accounts, { handle });
      users.push({ handle, token: (await mintAccessToken(admin.container, { userId: user.id })).access_token });
    }
    return users;
  }

  const publishesFor = (users: User[], perUser: number, on: SpawnedServer[]): Publish[] =>
    Array.from({ length: users.length * perUser }, (_, i) => ({
      user: users[i % users.length]!,
      server: on[i % on.length]!,
      slug: `p-${i}-${randomUUID().slice(0, 8)}`,
      body: `<!doctype html><p>publish ${i} ${randomUUID()}</p>`,
    }));

  /** The publishes answered ok whose page is missing or has other bytes, read through `via`'s dashboards host. */
  async function lost(publishes: Publish[], via: SpawnedServer): Promise<Publish[]> {
    const acknowledged = publishes.filter((p) => p.outcome?.kind === 'ok');
    const missing: Publish[] = [];
    let next = 0;
    const worker = async () => {
      while (next < acknowledged.length) {
        const p = acknowledged[next++]!;
        const res = await request({ url: `${via.url}/${p.slug}`, host: via.hosts.dashboard(p.user.handle) });
        if (res.status !== 200 || asPublished(res.text) !== p.body) missing.push(p);
      }
    };
    await Promise.all(Array.from({ length: 10 }, worker));
    return missing;
  }

  async function readyz(server: SpawnedServer): Promise<number> {
    const res = await request({ url: `http://127.0.0.1:${server.settings.adminPort}/readyz`, timeoutMs: 5_000 });
    return res.status;
  }

  /** Versions naming files that are not there, or dashboards whose current version is missing. */
  async function halfWritten(): Promise<number> {
    const dataSource = admin.container.get(DataSource);
    const [{ n: orphans }] = await dataSource.query(
      `SELECT count(*)::int AS n FROM dashboards d WHERE NOT EXISTS (SELECT 1 FROM dashboard_versions v WHERE v.id = d.current_version_id)`,
    );
    const [{ n: missingFiles }] = await dataSource.query(
      `SELECT count(*)::int AS n FROM dashboard_versions v, jsonb_each(v.files) f WHERE NOT EXISTS (SELECT 1 FROM files WHERE sha256 = f.value->>'sha256')`,
    );
    return orphans + missingFiles;
  }

  it('1,000 publishes at c20 on both instances through a PostgreSQL restart: none acknowledged is lost, every other call fails cleanly', async function () {
    this.timeout(150_000);
    const users = await newUsers(25);
    const publishes = publishesFor(users, 40, servers);
    let restart: Promise<void> | null = null;
    let downAt = 0;
    let upAt = 0;
    const started = Date.now();
    await burst(publishes, 20, (finished) => {
      if (finished === 250 && !restart) {
        downAt = Date.now();
        restart = db.restart().then(() => {
          upAt = Date.now();
        });
      }
    });
    await restart;
    const elapsed = Date.now() - started;

    const unclean = publishes.filter((p) => p.outcome!.kind === 'unclean' || p.outcome!.kind === 'unreachable');
    expect(unclean.map((p) => p.outcome), 'calls that neither succeeded nor failed cleanly').to.deep.equal([]);
    // The isError results are all "database not answering", never a rate limit or another refusal.
    const refusals = publishes.filter((p) => p.outcome!.kind === 'refused').map((p) => (p.outcome as { text: string }).text);
    expect(refusals.filter((text) => text !== SERVICE_UNAVAILABLE_TEXT)).to.deep.equal([]);

    const missing = await lost(publishes, servers[0]!);
    const firstAfter = publishes
      .filter((p) => p.outcome!.kind === 'ok' && p.startedAt! >= upAt)
      .reduce((min, p) => Math.min(min, p.endedAt!), Infinity);
    const recoveryMs = firstAfter - upAt;
    console.log(
      `      fault run: ${JSON.stringify(kinds(publishes))} in ${elapsed} ms; restart took ${upAt - downAt} ms; ` +
        `first publish acknowledged ${recoveryMs} ms after the database answered; lost ${missing.length}`,
    );
    expect(missing.map((p) => p.slug), 'acknowledged publishes missing afterwards').to.deep.equal([]);
    expect(upAt, 'the restart happened during the run').to.be.greaterThan(0);
    expect(recoveryMs, 'publishing works again within 5 s of the database answering').to.be.lessThan(5_000);
    expect(publishes.filter((p) => p.outcome!.kind === 'ok').length).to.be.greaterThan(500);
  });

  it('Redis killed mid-run: no call is refused for limiter reasons, and limits work again once it is back', async function () {
    this.timeout(90_000);
    const users = await newUsers(10);
    const publishes = publishesFor(users, 20, servers);
    let killed: Promise<void> | null = null;
    await burst(publishes, 10, (finished) => {
      if (finished === 50 && !killed) killed = redis.kill();
    });
    await killed;
    expect(kinds(publishes)).to.deep.equal({ ok: publishes.length });

    // While Redis is away one user goes past the 60-a-minute budget: allowed (fail open).
    const [spender] = await newUsers(1);
    const past = publishesFor([spender!], 70, servers);
    await burst(past, 5);
    expect(kinds(past)).to.deep.equal({ ok: 70 });

    await redis.start();
    // The limiter reconnects on its own (within about a second); then a fresh user's 61st call is refused.
    const [fresh] = await newUsers(1);
    const deadline = Date.now() + 30_000;
    let allowed = 0;
    let refusal: Outcome | null = null;
    while (!refusal && Date.now() < deadline) {
      const outcome = await callTool(servers[allowed % 2]!, fresh!.token, 'publish_dashboard', { path: `again-${allowed}`, body: 'x' });
      if (outcome.kind === 'ok') allowed++;
      else refusal = outcome;
    }
    expect(refusal).to.deep.equal({ kind: 'refused', text: 'Rate limit exceeded for publish_dashboard: too many requests. Wait about 60 seconds and try again.' });
    expect(allowed).to.be.at.least(60);
  });

  it('PostgreSQL down: no tool runs without a verified token, /healthz answers, /readyz says 503, and all recover', async function () {
    this.timeout(60_000);
    const [user] = await newUsers(1);
    for (const server of servers) expect(await readyz(server)).to.equal(200);
    await db.stop();
    try {
      expect(await postgresAnswers(db.url)).to.equal(false);
      for (const server of servers) {
        const valid = await callTool(server, user!.token, 'whoami', {});
        const forged = await callTool(server, `${user!.token.slice(0, -4)}${user!.token.endsWith('AAAA') ? 'BBBB' : 'AAAA'}`, 'whoami', {});
        // Fail closed: a token that cannot be checked runs nothing (503, or 401 for one that is not even
        // well formed); a genuine one at most reaches a tool that then finds no database.
        expect(valid.kind, JSON.stringify(valid)).to.be.oneOf(['unavailable', 'refused']);
        if (forged.kind !== 'unavailable') expect(forged, 'forged token').to.deep.include({ kind: 'unclean' }).and.satisfy((o: { detail: string }) => o.detail.startsWith('HTTP 401'));
        const health = await request({ url: `${server.url}/healthz`, host: server.hosts.api });
        expect([health.status, health.text]).to.deep.equal([200, 'ok']);
        expect(await readyz(server)).to.equal(503);
      }
    } finally {
      await db.start();
    }
    const upAt = Date.now();
    for (const server of servers) {
      while ((await readyz(server)) !== 200) {
        expect(Date.now() - upAt, '/readyz back to 200').to.be.lessThan(10_000);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      let outcome = await callTool(server, user!.token, 'publish_dashboard', { path: `back-${server.port}`, body: 'back' });
      while (outcome.kind !== 'ok' && Date.now() - upAt < 5_000) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        outcome = await callTool(server, user!.token, 'publish_dashboard', { path: `back-${server.port}`, body: 'back' });
      }
      expect(outcome.kind, JSON.stringify(outcome)).to.equal('ok');
    }
  });

  it('SIGTERM to one instance during a burst: the other carries on, nothing is half-written, the signalled one exits 0', async function () {
    this.timeout(90_000);
    const [staying, leaving] = servers as [SpawnedServer, SpawnedServer];
    const users = await newUsers(10);
    const publishes = publishesFor(users, 20, servers);
    let signalledAt = 0;
    await burst(publishes, 20, (finished) => {
      if (finished === 60 && !signalledAt) {
        signalledAt = Date.now();
        leaving.process.kill('SIGTERM');
      }
    });
    const code = await Promise.race([leaving.exited, new Promise((resolve) => setTimeout(() => resolve('still running'), 30_000))]);
    expect(code, `the signalled instance's exit\n${leaving.output().slice(-2000)}`).to.equal(0);

    const onStaying = publishes.filter((p) => p.server === staying);
    expect(kinds(onStaying), 'the other instance carries on').to.deep.equal({ ok: onStaying.length });
    const onLeaving = publishes.filter((p) => p.server === leaving);
    // The leaving instance finished what it had started, then refused connections: nothing else.
    for (const p of onLeaving) expect(p.outcome!.kind, JSON.stringify(p.outcome)).to.be.oneOf(['ok', 'unreachable']);
    expect((await lost(publishes, staying)).map((p) => p.slug)).to.deep.equal([]);
    expect(await halfWritten()).to.equal(0);
    console.log(`      SIGTERM run: staying ${JSON.stringify(kinds(onStaying))}, leaving ${JSON.stringify(kinds(onLeaving))}`);
  });
});
