import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import type { Frame, Page } from 'playwright-core';

/**
 * A web host for MCP Apps views, built on @modelcontextprotocol/ext-apps's AppBridge, for Chromium tests.
 * Its page (mcp-app-host/host.browser.js, bundled here with esbuild) is served on the API's own origin so
 * its MCP client reaches the real /mcp with a real token; the view runs inside a sandbox proxy on another
 * origin whose CSP is the extension's default, exactly as the specification's sandbox rules say.
 */

/** The extension's restrictive default CSP, with the sandbox proxy's additions (no frames, objects or foreign base). */
export const MCP_APPS_DEFAULT_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "media-src 'self' data:; connect-src 'none'; frame-src 'none'; object-src 'none'; base-uri 'self'";

const ENTRY = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../test/support/mcp-app-host/host.browser.js');

let bundle: Promise<string> | undefined;
function hostBundle(): Promise<string> {
  bundle ??= build({ entryPoints: [ENTRY], bundle: true, format: 'esm', platform: 'browser', minify: true, write: false, logLevel: 'silent' }).then(
    (r) => r.outputFiles[0]!.text,
  );
  return bundle;
}

const HOST_HTML = `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>MCP Apps host harness</title>
<style>
*{box-sizing:border-box}body{margin:0;background:#f3f4f6;font:14px system-ui,sans-serif}body.dark{background:#0d1014}
#stage{padding:12px}iframe{display:block;width:100%;height:80px;border:0;background:transparent}
iframe.bordered{border:1px solid #d0d5dd;border-radius:12px;overflow:hidden}body.dark iframe.bordered{border-color:#2f3540}
</style></head><body><div id="stage"></div><script type="module" src="/__harness/host.js"></script></body></html>`;

/** The sandbox proxy: loads the view's HTML into an inner frame and relays messages both ways. */
const PROXY_HTML = `<!doctype html><html><head><meta charset="utf-8">
<style>html,body{margin:0;height:100%;overflow:hidden}iframe{display:block;border:0;width:100%;height:100%}</style></head><body><script>
var inner = null;
window.addEventListener('message', function (event) {
  var m = event.data;
  if (event.source === window.parent) {
    if (m && m.method === 'ui/notifications/sandbox-resource-ready') {
      inner = document.createElement('iframe');
      inner.setAttribute('sandbox', (m.params && m.params.sandbox) || 'allow-scripts');
      inner.srcdoc = m.params.html;
      document.body.appendChild(inner);
    } else if (inner && inner.contentWindow) {
      inner.contentWindow.postMessage(m, '*');
    }
  } else if (inner && event.source === inner.contentWindow) {
    if (!(m && typeof m.method === 'string' && m.method.indexOf('ui/notifications/sandbox-') === 0)) window.parent.postMessage(m, '*');
  }
});
window.parent.postMessage({ jsonrpc: '2.0', method: 'ui/notifications/sandbox-proxy-ready', params: {} }, '*');
</script></body></html>`;

/** Every frame reports its CSP violations to the test (Playwright evaluates this outside any page CSP). */
const VIOLATION_LISTENER = `document.addEventListener('securitypolicyviolation', function (e) {
  if (typeof window.__cspViolation === 'function') window.__cspViolation({ directive: e.effectiveDirective, blocked: e.blockedURI, url: document.URL });
});`;

export interface CspViolation {
  directive: string;
  blocked: string;
  url: string;
}

export interface McpAppHarness {
  hostUrl: string;
  sandboxUrl: string;
  /** securitypolicyviolation events from any frame. */
  violations: CspViolation[];
  /** Bodies POSTed to the proxy CSP's report-uri. */
  reports: string[];
  popups: string[];
  requests: string[];
  /** Calls a tool on the real server and shows its answer in the tool's view; answers what the host got. */
  runTool(token: string, name: string, args: Record<string, unknown>, theme?: 'light' | 'dark'): Promise<{ uri: string; mimeType: string; meta: any; result: any }>;
  /** The view's own frame (the proxy's inner srcdoc frame), once it exists. */
  viewFrame(): Promise<Frame>;
  /** What the host recorded: links the view asked to open, sizes it reported, handshakes completed. */
  recorded(): Promise<{ openedLinks: string[]; sizes: number[]; initialized: number }>;
  setTheme(theme: 'light' | 'dark'): Promise<void>;
}

export interface HarnessOptions {
  /** false: the sandbox proxy sends no CSP, as a host that applies none would (the view must contain the page itself). */
  csp?: boolean;
}

export async function installMcpAppHarness(page: Page, apiOrigin: string, sandboxOrigin: string, options: HarnessOptions = {}): Promise<McpAppHarness> {
  const violations: CspViolation[] = [];
  const reports: string[] = [];
  const popups: string[] = [];
  const requests: string[] = [];
  const sandboxUrl = `${sandboxOrigin}/proxy.html`;
  const script = await hostBundle();

  await page.exposeBinding('__cspViolation', (_source, violation: CspViolation) => void violations.push(violation));
  await page.addInitScript({ content: VIOLATION_LISTENER });
  await page.route(`${apiOrigin}/__harness/**`, (route) => {
    const isScript = new URL(route.request().url()).pathname.endsWith('.js');
    return route.fulfill({ status: 200, contentType: isScript ? 'text/javascript' : 'text/html', body: isScript ? script : HOST_HTML });
  });
  await page.route(`${sandboxOrigin}/**`, (route) => {
    if (new URL(route.request().url()).pathname === '/__csp-report') {
      reports.push(route.request().postData() ?? '');
      return route.fulfill({ status: 204 });
    }
    return route.fulfill({
      status: 200,
      contentType: 'text/html',
      headers: options.csp === false ? {} : { 'content-security-policy': `${MCP_APPS_DEFAULT_CSP}; report-uri ${sandboxOrigin}/__csp-report` },
      body: PROXY_HTML,
    });
  });
  page.on('popup', (popup) => popups.push(popup.url()));
  page.on('request', (request) => requests.push(request.url()));

  const hostUrl = `${apiOrigin}/__harness/host.html`;
  await page.goto(hostUrl);
  await page.waitForFunction(() => typeof (globalThis as any).runTool === 'function');

  return {
    hostUrl,
    sandboxUrl,
    violations,
    reports,
    popups,
    requests,
    runTool: (token, name, args, theme = 'light') =>
      page.evaluate((options) => (globalThis as any).runTool(options), { token, sandboxUrl, name, args, theme }),
    async viewFrame() {
      for (let i = 0; i < 100; i++) {
        const frame = page.frames().find((f) => f.url() === 'about:srcdoc' && f.parentFrame()?.url() === sandboxUrl);
        if (frame) return frame;
        await page.waitForTimeout(50);
      }
      throw new Error('the view frame never appeared');
    },
    recorded: () =>
      page.evaluate(() => {
        const h = (globalThis as any).harness;
        return { openedLinks: [...h.openedLinks], sizes: [...h.sizes], initialized: h.initialized };
      }),
    setTheme: (theme) => page.evaluate((t) => (globalThis as any).setTheme(t), theme),
  };
}
