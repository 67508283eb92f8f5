import { expect } from 'chai';
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { request } from '../support/http.js';
import { pkcePair } from '../support/oauth-kit.js';
import { csrfOf, WebClient } from '../support/oauth-server.js';
import { freePort, spawnServer } from '../support/server.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const ROOT = path.resolve(here, '../../..');
const SUITE_CLI = path.join(ROOT, 'node_modules/@modelcontextprotocol/conformance/dist/index.js');
const NODE20_HOOK = path.resolve(here, '../support/conformance-node20.js');

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

interface SuiteRun {
  code: number | null;
  output: string;
  /** Every check of every scenario, from the checks.json files the suite writes. */
  checks: Check[];
}

/**
 * Runs the suite's CLI (`conformance <args>`) with its results written to a temporary directory.
 * `onOutput` sees the output as it arrives (the authorization run prints the URL to open there).
 */
function runSuite(args: string[], onOutput: (text: string, stop: () => void) => void = () => {}): Promise<SuiteRun> {
  const outputDir = mkdtempSync(path.join(os.tmpdir(), 'dashpub-conformance-'));
  const child = spawn(process.execPath, ['--import', NODE20_HOOK, SUITE_CLI, ...args, '--output-dir', outputDir], {
    cwd: outputDir,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const take = (chunk: Buffer) => {
    output += chunk.toString();
    onOutput(output, () => child.kill());
  };
  child.stdout.on('data', take);
  child.stderr.on('data', take);
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) => {
      const files = readdirSync(outputDir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('checks.json'));
      const checks = files.flatMap((f) => JSON.parse(readFileSync(path.join(outputDir, f), 'utf8')) as Check[]);
      rmSync(outputDir, { recursive: true, force: true });
      resolve({ code, output, checks });
    });
  });
}

const problems = (checks: Check[]) => checks.filter((c) => c.status !== 'SUCCESS' && c.status !== 'INFO');

/**
 * The MCP endpoint behind a loopback proxy that adds the bearer token: the suite's server scenarios
 * connect without credentials and have no way to send a header (its issue #453).
 */
async function bearerProxy(target: { url: string; host: string }, token: string) {
  const upstream = new URL(target.url);
  const server = http.createServer((req, res) => {
    const forwarded = http.request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: target.host, authorization: `Bearer ${token}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', () => res.destroy());
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

describe('e2e: the official MCP conformance suite against a dashpub serve process (PostgreSQL)', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let server: Awaited<ReturnType<typeof spawnServer>>;
  let web: WebClient;

  before(async () => {
    database = await createMigratedTestDatabase();
    // Loopback metadata documents are allowed for the last test, whose client is one.
    server = await spawnServer({ DATABASE_URL: database.url, REDIS_URL: '', ALLOW_LOOPBACK_CLIENT_METADATA: 'true' });
    web = new WebClient(server.url, server.hosts.app);
    const signUp = await web.get('/sign-up');
    await web.post('/sign-up', { csrf: csrfOf(signUp), handle: 'conform', email: 'conform@example.com', password: 'correct horse battery' });
  });
  after(async () => {
    await server?.close();
    await database?.drop();
  });

  const register = async (redirectUri: string): Promise<string> => {
    const res = await request({
      url: `${server.url}/register`,
      host: server.hosts.api,
      method: 'POST',
      body: { client_name: 'MCP conformance suite', redirect_uris: [redirectUri] },
    });
    expect(res.status).to.equal(201);
    return res.json().client_id;
  };

  /** What the person at the browser does: open the URL, then Allow access on the consent screen. */
  const consentTo = async (authorizationUrl: URL): Promise<URL> => {
    const started = await request({ url: `${server.url}${authorizationUrl.pathname}${authorizationUrl.search}`, host: server.hosts.api });
    expect(started.status, started.text).to.equal(302);
    const consentUrl = new URL(started.headers.location!);
    const consent = await web.get(`${consentUrl.pathname}${consentUrl.search}`);
    const allowed = await web.post('/consent', { csrf: csrfOf(consent), request: consentUrl.searchParams.get('request')!, decision: 'allow', target: 'personal' });
    expect(allowed.status).to.equal(303);
    return new URL(allowed.headers.location!);
  };

  /** The suite's authorization run for `clientId`, whose redirect URI is the suite's listener on `port`. */
  const authorizationRun = async (clientId: string, port: number) => {
    let consented: Promise<void> | null = null;
    let failure: unknown = null;
    const run = await runSuite(
      ['authorization', '--url', server.settings.baseUrl, '--client-id', clientId, '--port', String(port), '--resource', `${server.settings.baseUrl}/mcp`],
      (output, stop) => {
        const match = /^(http:\/\/\S+\/authorize\?\S+)$/m.exec(output);
        if (!match || consented) return;
        // The redirect to the suite's own callback listener is the last step, as a browser would take it.
        consented = consentTo(new URL(match[1]!))
          .then(async (callback) => {
            const answered = await request({ url: callback.href });
            expect(answered.status).to.equal(200);
          })
          // The suite would wait minutes for a callback that is not coming: stop it and report why.
          .catch((error: unknown) => {
            failure = error;
            stop();
          });
      },
    );
    await consented;
    if (failure) throw failure;
    expect(consented, run.output).to.not.equal(null);
    expect(problems(run.checks), run.output).to.deep.equal([]);
    expect(run.checks.map((c) => c.id)).to.include.members(['authorization-server-metadata', 'authorization-server-metadata-cimd', 'authorization-code-grant']);
    expect(run.code, run.output).to.equal(0);
  };

  it('passes the authorization run with no warnings', async () => {
    const port = await freePort();
    await authorizationRun(await register(`http://127.0.0.1:${port}/callback`), port);
  });

  it('passes the authorization run with a client ID metadata document as the client', async () => {
    const port = await freePort();
    let fetched = 0;
    const site = http.createServer((req, res) => {
      fetched += 1;
      const clientId = `http://127.0.0.1:${(site.address() as AddressInfo).port}${req.url}`;
      const document = { client_id: clientId, client_name: 'Conformance suite', redirect_uris: [`http://127.0.0.1:${port}/callback`], token_endpoint_auth_method: 'none' };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(document));
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', () => resolve()));
    try {
      await authorizationRun(`http://127.0.0.1:${(site.address() as AddressInfo).port}/conformance/client.json`, port);
      expect(fetched).to.equal(1);
    } finally {
      await new Promise<void>((resolve) => site.close(() => resolve()));
    }
  });

  it('passes the server scenarios server-initialize, ping, tools-list, prompts-list and resources-list', async () => {
    // A token of the ordinary kind: a registered client, the consent screen, the token endpoint.
    const redirectUri = 'http://127.0.0.1:53682/callback';
    const clientId = await register(redirectUri);
    const pkce = pkcePair();
    const query = new URLSearchParams({ response_type: 'code', client_id: clientId, redirect_uri: redirectUri, code_challenge: pkce.challenge, code_challenge_method: 'S256' });
    const callback = await consentTo(new URL(`${server.settings.baseUrl}/authorize?${query}`));
    const tokens = await request({
      url: `${server.url}/token`,
      host: server.hosts.api,
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'authorization_code', client_id: clientId, code: callback.searchParams.get('code')!, code_verifier: pkce.verifier, redirect_uri: redirectUri }).toString(),
    });
    expect(tokens.status, tokens.text).to.equal(200);
    const proxy = await bearerProxy({ url: server.url, host: server.hosts.api }, tokens.json().access_token);
    try {
      const scenarios = ['server-initialize', 'ping', 'tools-list', 'prompts-list', 'resources-list'];
      const runs = await Promise.all(scenarios.map((scenario) => runSuite(['server', '--url', proxy.url, '--scenario', scenario])));
      runs.forEach((run, i) => {
        expect(run.checks, `${scenarios[i]}: ${run.output}`).to.not.be.empty;
        expect(problems(run.checks), `${scenarios[i]}: ${run.output}`).to.deep.equal([]);
        expect(run.code, `${scenarios[i]}: ${run.output}`).to.equal(0);
      });
    } finally {
      await proxy.close();
    }
  });
});
