import { expect } from 'chai';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GUIDED_TOOL_NAMES } from '../../shells/client-kit/tool-guide.js';
import { checkClientKit } from '../support/client-shapes.js';
import { runDashpub as dashpub, spawnDashpub } from '../support/cli.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { request } from '../support/http.js';
import { startFullServer, type FullServer } from '../support/server.js';

/** Every file under `dir`, by path relative to it with `/` separators. */
function readTree(dir: string, prefix = ''): Map<string, string> {
  const files = new Map<string, string>();
  for (const entry of readdirSync(path.join(dir, prefix))) {
    const relative = prefix ? `${prefix}/${entry}` : entry;
    if (statSync(path.join(dir, relative)).isDirectory()) for (const [p, c] of readTree(dir, relative)) files.set(p, c);
    else files.set(relative, readFileSync(path.join(dir, relative), 'utf8'));
  }
  return files;
}

/**
 * `dashpub client-kit --out DIR` through runCli (once as the binary), against a running server on
 * PostgreSQL: the kit is a Claude Code plugin in shape, and its MCP URL answers the sign-in handshake.
 */
describe('e2e: dashpub client-kit (PostgreSQL)', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let server: FullServer;
  let env: NodeJS.ProcessEnv;
  let scratch: string;

  before(async () => {
    database = await createMigratedTestDatabase();
    server = await startFullServer({ DATABASE_URL: database.url, SECRET_KEY: 'client-kit-secret', REDIS_URL: '' });
    // The CLI sees the same settings as the server it describes.
    env = { BASE_URL: server.settings.baseUrl, APP_URL: server.settings.appUrl, SERVICE_NAME: 'service', DATABASE_URL: '' };
    scratch = mkdtempSync(path.join(os.tmpdir(), 'dashpub-kit-'));
  });
  after(async () => {
    await server?.close();
    await database?.drop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('writes the marketplace and the plugin `service`, whose MCP URL answers 401 naming the resource metadata', async () => {
    const out = path.join(scratch, 'kit');
    const run = await spawnDashpub(env, ['client-kit', '--out', out, '--json']);
    expect(run.code, run.stderr).to.equal(0);
    const summary = JSON.parse(run.stdout);
    expect(summary).to.deep.include({ out, mcpUrl: `${server.settings.baseUrl}/mcp`, server: 'service', plugin: 'service', toolPrefix: 'mcp__plugin_service_service__' });
    const files = readTree(out);
    expect([...files.keys()].sort()).to.deep.equal([...summary.files].sort());
    const mcpUrl = checkClientKit(files, { serviceName: 'service', mcpUrl: `${server.settings.baseUrl}/mcp`, toolNames: GUIDED_TOOL_NAMES });
    expect(files.get('README.md')).to.contain(`claude plugin install service@${summary.marketplace}`);

    // What Claude Code does first with the plugin's server: an unauthenticated POST, answered 401.
    const target = new URL(mcpUrl);
    const res = await request({
      url: `${server.url}${target.pathname}`,
      host: target.host,
      method: 'POST',
      headers: { accept: 'application/json, text/event-stream' },
      body: { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'claude-code', version: '2' } } },
    });
    expect(res.status).to.equal(401);
    const challenge = String(res.headers['www-authenticate']);
    const metadataUrl = /^Bearer resource_metadata="([^"]+)"$/.exec(challenge)?.[1];
    expect(metadataUrl, challenge).to.equal(`${server.settings.baseUrl}/.well-known/oauth-protected-resource`);
    const metadata = await request({ url: `${server.url}${new URL(metadataUrl!).pathname}`, host: target.host });
    expect(metadata.status).to.equal(200);
    expect(metadata.json()).to.deep.include({ resource: mcpUrl, authorization_servers: [server.settings.baseUrl] });
  });

  it('prints the files and the install commands without --json', async () => {
    const out = path.join(scratch, 'human');
    const run = await dashpub(env, ['client-kit', '--out', out]);
    expect(run.code, run.stderr).to.equal(0);
    expect(run.stdout).to.contain(`wrote the service plugin for ${server.settings.baseUrl}/mcp to ${out}:`);
    expect(run.stdout).to.contain('  plugins/service/.mcp.json');
    expect(run.stdout).to.match(/claude plugin install service@service-localhost-\d+\n$/);
  });

  it('refuses an --out that is not empty, or not a directory, and writes nothing', async () => {
    const full = path.join(scratch, 'full');
    await dashpub(env, ['client-kit', '--out', full]);
    const before = readTree(full);
    const again = await dashpub(env, ['client-kit', '--out', full, '--json']);
    expect(again.code).to.equal(1);
    expect(JSON.parse(again.stderr)).to.deep.equal({ error: 'conflict', message: `--out ${full} is not empty; give a new or empty directory` });
    expect(readTree(full)).to.deep.equal(before);
    const file = path.join(scratch, 'a-file');
    writeFileSync(file, 'x');
    const onFile = await dashpub(env, ['client-kit', '--out', file]);
    expect(onFile.code).to.equal(1);
    expect(onFile.stderr.trim()).to.equal(`error: --out ${file} exists and is not a directory; give a new or empty directory`);
    const odd = await dashpub({ ...env, SERVICE_NAME: 'My Service' }, ['client-kit', '--out', path.join(scratch, 'odd')]);
    expect(odd.code).to.equal(1);
    expect(odd.stderr.trim()).to.equal('error: SERVICE_NAME "My Service" cannot name a Claude Code plugin: use lowercase letters, digits and single dashes');
    expect(readdirSync(scratch)).to.not.include('odd');
    const usage = await dashpub(env, ['client-kit']);
    expect(usage.code).to.equal(2);
    expect(usage.stderr).to.contain("required option '--out <dir>' not specified");
  });

  it('takes the host and the name from the settings it runs with', async () => {
    const out = path.join(scratch, 'other');
    const run = await dashpub({ BASE_URL: 'https://mcp.acme.test', APP_URL: 'https://app.acme.test', SERVICE_NAME: 'acme' }, ['client-kit', '--out', out, '--json']);
    expect(run.code, run.stderr).to.equal(0);
    const files = readTree(out);
    expect(checkClientKit(files, { serviceName: 'acme', mcpUrl: 'https://mcp.acme.test/mcp', toolNames: GUIDED_TOOL_NAMES })).to.equal('https://mcp.acme.test/mcp');
    expect([...files.values()].join('\n')).to.not.match(/localhost|\bservice\b/);
  });
});
