import { expect } from 'chai';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { strFromU8, unzipSync } from 'fflate';
import type { Page } from 'playwright-core';
import { launchChromium, openPage, SCREENSHOTS } from '../support/browser.js';
import axe from 'axe-core';
import { GUIDED_TOOL_NAMES } from '../../shells/client-kit/tool-guide.js';
import { serveTools, TOOL_NAMES } from '../../shells/koa/mcp/tools/index.js';
import { createMigratedTestDatabase, type TestDatabase } from '../support/database.js';
import { request } from '../support/http.js';
import {
  checkClientKit,
  CLAUDE_CODE_MCP_JSON,
  CLAUDE_DESKTOP_CONFIG,
  CURSOR_MCP_JSON,
  expectShape,
  VSCODE_MCP_JSON,
} from '../support/client-shapes.js';
import type { Shape } from '../support/json-shape.js';
import { csrfOf, WebClient } from '../support/oauth-server.js';
import { startFullServer, type FullServer } from '../support/server.js';

const unescape = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|#39);/g, (_, e: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'" })[e]!);

/** A response body as bytes (the shared helper answers text). */
function download(url: string, host: string): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    http.get(url, { headers: { host }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
      res.on('error', reject);
    }).on('error', reject);
  });
}

/** The snippets of the page by id, as a person would copy them. */
const snippetsOf = (page: string) =>
  new Map([...page.matchAll(/<pre id="([a-z-]+)" tabindex="0">([\s\S]*?)<\/pre>/g)].map((m) => [m[1]!, unescape(m[2]!)]));

/** `/connect` and the kit download on the app host over HTTP, and in Chromium for accessibility, on PostgreSQL. */
describe('e2e: connect an AI client page (PostgreSQL)', function () {
  this.timeout(60_000);
  let database: TestDatabase;
  let server: FullServer & { server: Awaited<ReturnType<typeof startFullServer>>['server'] };
  let app: (path: string) => ReturnType<typeof request>;
  let mcpUrl: string;

  before(async () => {
    database = await createMigratedTestDatabase();
    server = await startFullServer({ DATABASE_URL: database.url, SECRET_KEY: 'connect-page-secret', REDIS_URL: '', SERVICE_NAME: 'service' });
    app = (path) => request({ url: `${server.url}${path}`, host: server.hosts.app });
    mcpUrl = `${server.settings.baseUrl}/mcp`;
  });
  after(async () => {
    await server?.close();
    await database?.drop();
  });

  it("shows this instance's MCP URL and a copy-ready setup for each client, naming the server `service`", async () => {
    const res = await app('/connect');
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.match(/^text\/html/);
    expect(res.text).to.contain(`<code id="mcp-url">${mcpUrl}</code>`);
    expect(res.text).to.contain('mcp__service__&lt;tool&gt;');
    expect(res.text).to.contain('mcp__plugin_service_service__&lt;tool&gt;');
    expect(res.text).to.contain(`${server.settings.appUrl}/consent`);
    const headings = [...res.text.matchAll(/<h([1-6])[ >]/g)].map((m) => Number(m[1]));
    expect(headings[0]).to.equal(1);
    headings.forEach((level, i) => i > 0 && expect(level - headings[i - 1]!, `heading ${i}`).to.be.at.most(1));
    for (const title of ['Claude Code', 'Claude Desktop and claude.ai', 'Cursor', 'VS Code', 'ChatGPT', 'MCP Inspector', 'What to expect']) {
      expect(res.text).to.match(new RegExp(`<h2 id="[a-z-]+">${title}</h2>`));
    }

    const snippets = snippetsOf(res.text);
    expect(snippets.get('claude-code-command')).to.equal(`claude mcp add --transport http service ${mcpUrl}`);
    /** A config snippet, parsed and held to the shape its client reads. */
    const config = (id: string, shape: Shape, what: string) => {
      const parsed = JSON.parse(snippets.get(id)!);
      expectShape(parsed, shape, what);
      return parsed;
    };
    expect(config('claude-code-project', CLAUDE_CODE_MCP_JSON, 'Claude Code .mcp.json').mcpServers.service.url).to.equal(mcpUrl);
    expect(config('cursor-config', CURSOR_MCP_JSON, 'Cursor').mcpServers.service.url).to.equal(mcpUrl);
    expect(config('vscode-config', VSCODE_MCP_JSON, 'VS Code').servers.service.url).to.equal(mcpUrl);
    expect(config('claude-desktop-config', CLAUDE_DESKTOP_CONFIG, 'Claude Desktop').mcpServers.service.args).to.include(mcpUrl);
    for (const id of ['claude-desktop-url', 'chatgpt-url', 'inspector-url']) expect(snippets.get(id), id).to.equal(mcpUrl);
    expect(snippets.get('inspector-command')).to.equal('npx @modelcontextprotocol/inspector');
    expect(snippets.get('claude-code-plugin')).to.match(/^claude plugin marketplace add \.\/service-client-kit\nclaude plugin install service@service-localhost-\d+$/);
    expect(res.text).to.contain('href="/connect/client-kit.zip"');
  });

  it('runs no script but its one copy helper, allowed by hash', async () => {
    const res = await app('/connect');
    const csp = String(res.headers['content-security-policy']);
    expect(csp).to.contain("default-src 'none'");
    expect(csp).to.contain("frame-ancestors 'none'");
    const scripts = [...res.text.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    expect(scripts).to.have.length(1);
    expect(csp).to.match(new RegExp(`script-src '${`sha256-${createHash('sha256').update(scripts[0]!).digest('base64')}`.replace(/[+/]/g, '\\$&')}'$`));
    // Without script the Copy buttons stay hidden; the snippets are plain text.
    expect(res.text.match(/<button type="button" class="copy"[^>]* hidden>Copy<\/button>/g)?.length).to.equal(snippetsOf(res.text).size);
  });

  it('is linked from the sign-in page and the account page', async () => {
    const web = new WebClient(server.url, server.hosts.app);
    const signIn = await web.get('/sign-in');
    expect(signIn.text).to.contain('href="/connect"');
    const signedUp = await web.post('/sign-up', { csrf: csrfOf(await web.get('/sign-up')), handle: 'cora', email: 'cora@example.com', password: 'correct horse battery' });
    expect(signedUp.status).to.equal(303);
    const account = await web.get('/account');
    expect(account.status).to.equal(200);
    expect(account.text).to.contain('href="/connect"');
  });

  it('offers the Claude Code plugin as a zip that installs in shape and names every tool the server lists', async () => {
    const res = await app('/connect/client-kit.zip');
    expect(res.status).to.equal(200);
    expect(res.headers['content-type']).to.equal('application/zip');
    expect(res.headers['content-disposition']).to.equal('attachment; filename="service-client-kit.zip"');
    const entries = unzipSync(await download(`${server.url}/connect/client-kit.zip`, server.hosts.app));
    const files = new Map(Object.entries(entries).map(([path, bytes]) => [path.replace(/^service-client-kit\//, ''), strFromU8(bytes)]));
    expect(Object.keys(entries).every((path) => path.startsWith('service-client-kit/'))).to.equal(true);
    const container = server.server.app.container;
    const served = serveTools(container).map((t) => t.name);
    expect(served).to.deep.equal([...TOOL_NAMES]);
    expect([...GUIDED_TOOL_NAMES].sort()).to.deep.equal([...served].sort());
    expect(checkClientKit(files, { serviceName: 'service', mcpUrl, toolNames: served })).to.equal(mcpUrl);
  });

  it('has no serious or critical accessibility violations (axe-core in Chromium), with and without script', async () => {
    const browser = await launchChromium();
    try {
      for (const javaScriptEnabled of [true, false]) {
        for (const viewport of [{ width: 1280, height: 900 }, { width: 390, height: 844 }]) {
          const { context, page } = await openPage(browser, { javaScriptEnabled, viewport });
          const res = await page.goto(`${server.settings.appUrl}/connect`);
          expect(res?.status()).to.equal(200);
          // Copy buttons appear only with script and the clipboard API (http://app.localhost is a secure context).
          expect(await page.locator('button.copy:visible').count()).to.equal(javaScriptEnabled ? await page.locator('pre').count() : 0);
          if (javaScriptEnabled) {
            mkdirSync(SCREENSHOTS, { recursive: true });
            await page.screenshot({ path: path.join(SCREENSHOTS, `connect-${viewport.width > 600 ? 'desktop' : 'phone'}.png`), fullPage: true });
          }
          const violations = await axeViolations(page, javaScriptEnabled);
          expect(violations, JSON.stringify(violations, null, 1)).to.deep.equal([]);
          await context.close();
        }
      }
    } finally {
      await browser.close();
    }
  });
});

/** axe-core's serious and critical findings; without page script it runs in a fresh JS-enabled page on the same HTML. */
async function axeViolations(page: Page, scriptEnabled: boolean): Promise<Array<{ id: string; impact: string; nodes: string[] }>> {
  if (!scriptEnabled) {
    const html = await page.content();
    const context = await page.context().browser()!.newContext({ javaScriptEnabled: true, viewport: page.viewportSize()! });
    const copy = await context.newPage();
    // The same markup, its script removed, so what axe sees is the page without JavaScript.
    await copy.setContent(html.replace(/<script>[\s\S]*?<\/script>/g, ''));
    await copy.addScriptTag({ content: axe.source });
    const found = await runAxe(copy);
    await context.close();
    return found;
  }
  // evaluate() is not subject to the page's CSP, which would refuse an injected <script>.
  await page.evaluate(axe.source);
  return runAxe(page);
}

async function runAxe(page: Page) {
  const result = (await page.evaluate(() =>
    (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }),
  )) as axe.AxeResults;
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => ({ id: v.id, impact: String(v.impact), nodes: v.nodes.map((n) => n.html) }));
}
