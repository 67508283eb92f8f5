import http from 'node:http';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import pg from 'pg';
import { loadSettings } from '../../shells/config.js';
import { logContext } from '../../shells/logger.js';
import { isDatabaseUnavailable } from '../../adapters/postgres/database-unavailable.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { request } from '../support/http.js';
import { captureLogs } from '../support/logs.js';
import { pkcePair } from '../support/oauth-kit.js';
import { csrfOf, WebClient } from '../support/oauth-server.js';
import { freePort, spawnServer, type SpawnedServer } from '../support/server.js';

const REDIRECT = 'http://127.0.0.1:49152/callback';
const PASSWORD = 'operability horse battery staple';

/** A `dashpub serve` process as operators run it: its JSON log, its request ids, its admin listener, its shutdown. */
describe('e2e: operating a serve process (logs, request ids, metrics, readiness, shutdown)', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let server: SpawnedServer;
  let adminUrl: string;

  before(async () => {
    database = await createTestDatabase();
    server = await spawnServer({
      DATABASE_URL: database.url,
      REDIS_URL: '',
      ADMIN_PORT: String(await freePort()),
      TRUST_PROXY: '1',
      LOG_LEVEL: 'debug',
    });
    adminUrl = `http://127.0.0.1:${server.settings.adminPort}`;
  });

  after(async () => {
    await server?.close();
    await database?.drop();
  });

  const api = (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) =>
    request({ url: `${server.url}${path}`, host: server.hosts.api, ...init });

  /** Sign-up with a password, consent and the code exchange, all over HTTP as a client and a browser do. */
  async function signInThroughOAuth(handle: string) {
    const registered = await api('/register', { method: 'POST', body: { client_name: 'Operability client', redirect_uris: [REDIRECT] } });
    const clientId = registered.json<{ client_id: string }>().client_id;
    const pkce = pkcePair();
    const query = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: REDIRECT, code_challenge: pkce.challenge, code_challenge_method: 'S256', state: 'st4te' });
    const authorized = await api(`/authorize?${query}`);
    expect(authorized.status).to.equal(302);
    const consentUrl = new URL(authorized.headers.location!);
    const consentPath = `${consentUrl.pathname}${consentUrl.search}`;

    const web = new WebClient(server.url, server.hosts.app);
    const form = await web.get('/sign-up');
    const signedUp = await web.post('/sign-up', { csrf: csrfOf(form), handle, email: `${handle}@example.com`, password: PASSWORD, return_to: '/account' });
    expect(signedUp.status).to.equal(303);
    const page = await web.get(consentPath);
    const requestHandle = consentUrl.searchParams.get('request')!;
    const allowed = await web.post('/consent', { csrf: csrfOf(page), request: requestHandle, decision: 'allow', target: 'personal' });
    expect(allowed.status).to.equal(303);
    const code = new URL(allowed.headers.location!).searchParams.get('code')!;
    const exchanged = await api('/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: pkce.verifier, redirect_uri: REDIRECT, client_id: clientId }).toString(),
    });
    expect(exchanged.status).to.equal(200);
    const tokens = exchanged.json<{ access_token: string; refresh_token: string }>();
    return { code, verifier: pkce.verifier, ...tokens };
  }

  const publish = (token: string, args: Record<string, unknown>, headers: Record<string, string> = {}) =>
    api('/mcp', {
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream', authorization: `Bearer ${token}`, ...headers },
      body: { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'publish_dashboard', arguments: args } },
    });

  it('logs a full OAuth sign-in and publish with request ids, and never the token, code, password or body', async () => {
    const secrets = await signInThroughOAuth('loggy');
    const body = `<p>body marker ${randomUUID()}</p>`;
    const proxyId = `proxy-${randomUUID()}`;
    const published = await publish(secrets.access_token, { path: 'logged', body }, { 'x-request-id': proxyId });
    expect(published.status).to.equal(200);
    expect(published.json().result.isError).to.equal(undefined);
    expect(published.headers['x-request-id'], 'the trusted proxy\'s id is echoed').to.equal(proxyId);
    const generated = await api('/healthz');
    expect(generated.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);
    const refusedId = await api('/healthz', { headers: { 'x-request-id': 'not allowed: spaces' } });
    expect(refusedId.headers['x-request-id']).to.match(/^[0-9a-f-]{36}$/);

    await new Promise((resolve) => setTimeout(resolve, 300)); // the log lines of the last requests
    const log = server.output();
    const lines = log.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line) as Record<string, unknown>);
    const publishLine = lines.find((line) => line.reqId === proxyId);
    expect(publishLine, 'the publish request has a log line with its id').to.deep.include({ surface: 'api', method: 'POST', path: '/mcp', status: 200 });
    expect(lines.some((line) => line.path === '/token' && typeof line.reqId === 'string')).to.equal(true);
    const { code, verifier, access_token, refresh_token } = secrets;
    for (const [name, value] of Object.entries({ code, verifier, access_token, refresh_token, password: PASSWORD, body })) {
      expect(log.includes(value), `the log contains the ${name}`).to.equal(false);
    }
    expect(log).to.not.include(database.url);
  });

  it('serves metrics, /readyz and /livez on the admin listener only', async () => {
    const { access_token } = await signInThroughOAuth('metered');
    expect((await publish(access_token, { path: 'counted', body: '<p>counted</p>' })).status).to.equal(200);
    expect((await publish(access_token, { path: 'Bad Slug!', body: 'x' })).json().result.isError).to.equal(true);
    expect((await publish('not-a-token', { path: 'x', body: 'x' })).status).to.equal(401);
    const page = await request({ url: `${server.url}/counted`, host: server.hosts.dashboard('metered') });
    expect(page.status).to.equal(200);
    // 31 registrations from one address (behind the trusted proxy): the last is refused by the `register` limit.
    const from = { 'x-forwarded-for': '203.0.113.7' };
    for (let i = 0; i < 31; i++) await api('/register', { method: 'POST', headers: from, body: { client_name: `c${i}`, redirect_uris: [REDIRECT] } });

    const metrics = await request({ url: `${adminUrl}/metrics` });
    expect(metrics.status).to.equal(200);
    expect(metrics.headers['content-type']).to.match(/^text\/plain; version=0\.0\.4/);
    const sample = (pattern: string) => {
      const line = metrics.text.split('\n').find((l) => l.startsWith(pattern));
      return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
    };
    expect(sample('dashpub_tool_calls_total{tool="publish_dashboard",outcome="ok"}')).to.be.at.least(1);
    expect(sample('dashpub_tool_calls_total{tool="publish_dashboard",outcome="refused"}')).to.be.at.least(1);
    expect(sample('dashpub_tool_call_duration_seconds_count{tool="publish_dashboard",outcome="ok"}')).to.be.at.least(1);
    expect(sample('dashpub_token_verifications_total{outcome="valid"}')).to.be.at.least(2);
    expect(sample('dashpub_token_verifications_total{outcome="invalid"}')).to.equal(1);
    expect(sample('dashpub_rate_limit_refusals_total{limit="register"}')).to.equal(1);
    expect(sample('dashpub_http_requests_total{surface="api",status="200"}')).to.be.at.least(2);
    expect(sample('dashpub_http_requests_total{surface="app",status="303"}')).to.be.at.least(2);
    expect(sample('dashpub_http_request_duration_seconds_count{surface="api",status="401"}')).to.equal(1);
    expect(sample('dashpub_dashboards_served_total{status="200"}')).to.equal(1);
    expect(sample('dashpub_refresh_queue_depth')).to.equal(0);
    expect(sample('dashpub_db_pool_connections_in_use')).to.be.a('number');
    expect(sample('dashpub_db_pool_waiting')).to.equal(0);
    expect(metrics.text).to.match(/^# TYPE dashpub_refresh_runs_total counter$/m);
    expect(sample('dashpub_process_cpu_user_seconds_total')).to.be.greaterThan(0);

    expect((await request({ url: `${adminUrl}/livez` })).text).to.equal('ok');
    expect((await request({ url: `${adminUrl}/readyz` })).status).to.equal(200);
    // A migration this build has that the database lacks: not ready until it is applied again.
    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query(`DELETE FROM migrations WHERE id = (SELECT max(id) FROM migrations) RETURNING id, timestamp, name`);
      expect((await request({ url: `${adminUrl}/readyz` })).status).to.equal(503);
      await client.query(`INSERT INTO migrations (id, timestamp, name) VALUES ($1, $2, $3)`, [rows[0].id, rows[0].timestamp, rows[0].name]);
      expect((await request({ url: `${adminUrl}/readyz` })).status).to.equal(200);
    } finally {
      await client.end();
    }
    expect((await request({ url: `${adminUrl}/elsewhere` })).status).to.equal(404);
    // Never on the service's own hosts.
    for (const host of [server.hosts.api, server.hosts.app, server.hosts.dashboard('metered')]) {
      for (const path of ['/metrics', '/readyz', '/livez']) {
        expect((await request({ url: `${server.url}${path}`, host })).status, `${host}${path}`).to.equal(404);
      }
    }
  });

  it('on SIGTERM finishes a publish still uploading, then exits 0', async () => {
    const { access_token } = await signInThroughOAuth('drained');
    const payload = Buffer.from(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'publish_dashboard', arguments: { path: 'in-flight', body: `<p>${'x'.repeat(200_000)}</p>` } } }));
    const half = Math.floor(payload.length / 2);
    const answered = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        {
          host: '127.0.0.1',
          port: server.port,
          path: '/mcp',
          method: 'POST',
          headers: {
            host: server.hosts.api,
            'content-type': 'application/json',
            'content-length': String(payload.length),
            accept: 'application/json, text/event-stream',
            authorization: `Bearer ${access_token}`,
          },
        },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
        },
      );
      req.on('error', reject);
      req.write(payload.subarray(0, half));
      setTimeout(() => {
        server.process.kill('SIGTERM');
        setTimeout(() => req.end(payload.subarray(half)), 500);
      }, 300);
    });
    const reply = await answered;
    expect(reply.status).to.equal(200);
    expect(JSON.parse(reply.text).result.isError, reply.text).to.equal(undefined);
    expect(await server.exited).to.equal(0);
    expect(server.output()).to.include('shutting down').and.include('shut down cleanly');

    const client = new pg.Client({ connectionString: database.url });
    await client.connect();
    try {
      const { rows } = await client.query(`SELECT count(*)::int AS n FROM dashboards WHERE slug = 'in-flight'`);
      expect(rows[0].n).to.equal(1);
    } finally {
      await client.end();
    }
  });
});

describe('operator settings', () => {
  it('reads ADMIN_PORT, ADMIN_HOST and SHUTDOWN_GRACE_SECONDS, with the listener off by default', () => {
    expect(loadSettings({})).to.deep.include({ adminPort: null, adminHost: '127.0.0.1', shutdownGraceSeconds: 10 });
    expect(loadSettings({ ADMIN_PORT: '9464', ADMIN_HOST: '10.0.0.5', SHUTDOWN_GRACE_SECONDS: '2.5' })).to.deep.include({
      adminPort: 9464,
      adminHost: '10.0.0.5',
      shutdownGraceSeconds: 2.5,
    });
    expect(() => loadSettings({ ADMIN_PORT: 'metrics' })).to.throw('ADMIN_PORT must be a port number (got "metrics")');
    expect(() => loadSettings({ SHUTDOWN_GRACE_SECONDS: '-1' })).to.throw('SHUTDOWN_GRACE_SECONDS must be a number of seconds');
  });
});

describe('database pool', () => {
  it('DATABASE_POOL_SIZE is 8 by default and takes a number from 1 to 500', () => {
    expect(loadSettings({}).databasePoolSize).to.equal(8);
    expect(loadSettings({ DATABASE_POOL_SIZE: ' ' }).databasePoolSize).to.equal(8);
    expect(loadSettings({ DATABASE_POOL_SIZE: '7' }).databasePoolSize).to.equal(7);
    expect(() => loadSettings({ DATABASE_POOL_SIZE: '0' })).to.throw('DATABASE_POOL_SIZE');
  });

  it('keeps an idle connection for ten minutes, not pg-pool\'s ten seconds, and does not keep a finished process alive for it', async function () {
    this.timeout(60_000);
    const database = await createTestDatabase();
    try {
      // A process that uses the pool and never closes it: it must still exit by itself, its connection idle in the pool.
      const script = `
        import { createDataSource, poolOf } from ${JSON.stringify(new URL('../../adapters/postgres/data-source.js', import.meta.url).href)};
        const dataSource = createDataSource(process.env.URL);
        await dataSource.initialize();
        await dataSource.query('SELECT 1');
        const pool = poolOf(dataSource);
        console.log(JSON.stringify({ idleTimeoutMillis: pool.options.idleTimeoutMillis, idle: pool.idleCount }));`;
      const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { env: { ...process.env, URL: database.url }, timeout: 30_000 });
      expect(JSON.parse(stdout)).to.deep.equal({ idleTimeoutMillis: 600_000, idle: 1 });
    } finally {
      await database.drop();
    }
  });

  it('a serve process with DATABASE_POOL_SIZE=1 migrates a new PostgreSQL database and answers: the migration lock has a connection of its own', async function () {
    this.timeout(60_000);
    const database = await createTestDatabase();
    let one: SpawnedServer | null = null;
    try {
      one = await spawnServer({ DATABASE_URL: database.url, REDIS_URL: '', DATABASE_POOL_SIZE: '1' }, 20_000);
      const client = new pg.Client({ connectionString: database.url });
      await client.connect();
      try {
        const { rows } = await client.query<{ n: number }>('SELECT count(*)::int AS n FROM migrations');
        expect(rows[0]!.n).to.be.greaterThan(10);
      } finally {
        await client.end();
      }
    } finally {
      await one?.close();
      await database.drop();
    }
  });
});

describe('the logger', () => {
  it('adds the request id to every line written inside a request, however deep', async () => {
    const { lines, logger } = captureLogs();
    await logContext.run({ reqId: 'req-1' }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      logger.child({ component: 'deep' }).warn({ n: 1 }, 'inside');
    });
    logger.info('outside');
    expect(lines[0]).to.deep.include({ reqId: 'req-1', component: 'deep', n: 1, msg: 'inside' });
    expect(lines[1]).to.not.have.property('reqId');
  });

  it('drops a failed query\'s parameters and redacts secret-named fields', () => {
    const { lines, logger } = captureLogs();
    const err = Object.assign(new Error('insert failed'), { query: 'INSERT INTO files VALUES ($1, $2)', parameters: ['abc', 'file body'], driverError: { code: '23505', parameters: ['x'] } });
    logger.error({ err, form: { password: 'hunter2', code: 'c0de' } }, 'failed');
    expect(lines[0]!.err).to.deep.include({ message: 'insert failed', query: 'INSERT INTO files VALUES ($1, $2)' });
    expect(lines[0]!.err).to.not.have.property('parameters');
    expect(lines[0]!.err.driverError).to.deep.equal({ code: '23505' });
    expect(lines[0]!.form).to.deep.equal({ password: '[redacted]', code: '[redacted]' });
  });
});

describe('isDatabaseUnavailable', () => {
  it('tells a database that is away from a request or code that is wrong', () => {
    const away = [
      Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' }),
      Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
      Object.assign(new Error('Query failed'), { driverError: Object.assign(new Error('the database system is starting up'), { code: '57P03' }) }),
      new Error('Connection terminated unexpectedly'),
      new Error('Query runner already released. Cannot run queries anymore.'),
    ];
    for (const err of away) expect(isDatabaseUnavailable(err), err.message).to.equal(true);
    const wrong = [Object.assign(new Error('duplicate key value'), { code: '23505' }), new TypeError('x is undefined'), 'text'];
    for (const err of wrong) expect(isDatabaseUnavailable(err), String(err)).to.equal(false);
  });
});
