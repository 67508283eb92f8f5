/**
 * The view's script, hand-written and small: the extension's JSON-RPC over postMessage needs no SDK
 * (the specification shows the same few lines). It runs under the extension's default CSP, so it never
 * fetches anything: the page it previews comes through the host's `resources/read`.
 *
 * It is a browser script compiled and type-checked on its own (tsconfig.json here) and inlined into the
 * view's HTML as text (browser-scripts.ts). test/e2e/mcp-app-view.test.ts drives it in Chromium
 * through the extension's own host bridge. It reads the tool answers (`structuredContent` or the JSON copy)
 * as shells/presenters/dashboards/dashboard-presenters.ts shapes them: `dashboard`, `version`, `url`, `version_id`.
 * A spec page's parameter form becomes the view's own controls (param-controls.ts, decision 0283): chosen values
 * read the page again with the query string the dashboard's URL takes.
 */
namespace DashpubView {
  /** JSON as the host and the tools send it: read defensively, field by field. */
  type Json = any;

  var CONFIG = window.DASHPUB_VIEW_CONFIG;
  var PROTOCOL_VERSION = '2026-01-26';
  var XLINK = 'http://www.w3.org/1999/xlink';
  var el = function (id: string): HTMLElement { return document.getElementById(id)!; };
  var host: { capabilities: Json; context: Json } = { capabilities: {}, context: {} };
  /** `query`: the parameter values chosen in the view, as the page's URL takes them ('' for the defaults). */
  var state: {
    args: Json; url: string | null; seq: number; shown: boolean; image: { owner: string; slug: string; name: string; theme: string } | null;
    query: string; page: { owner: string; slug: string } | null;
  } = { args: null, url: null, seq: 0, shown: false, image: null, query: '', page: null };
  var pending = new Map<number, { resolve: (result: Json) => void; reject: (error: Error) => void }>();
  var nextId = 1;

  // ---- JSON-RPC over postMessage, with the host (or its sandbox proxy) as the only peer ----
  function post(message: Json) { window.parent.postMessage(message, '*'); }
  function request(method: string, params: Json): Promise<Json> {
    var id = nextId++;
    return new Promise(function (resolve, reject) {
      pending.set(id, { resolve: resolve, reject: reject });
      post({ jsonrpc: '2.0', id: id, method: method, params: params });
    });
  }
  function notify(method: string, params: Json) { post({ jsonrpc: '2.0', method: method, params: params }); }

  window.addEventListener('message', function (event) {
    if (event.source !== window.parent) return;
    var m = event.data;
    if (!m || typeof m !== 'object' || m.jsonrpc !== '2.0') return;
    if (typeof m.method === 'string') {
      if (m.id !== undefined && m.id !== null) return answer(m);
      return onNotification(m.method, m.params || {});
    }
    var waiting = pending.get(m.id);
    if (!waiting) return;
    pending.delete(m.id);
    if (m.error) waiting.reject(new Error(m.error.message || 'The host refused the request.'));
    else waiting.resolve(m.result || {});
  });

  function answer(m: Json) {
    if (m.method === 'ping' || m.method === 'ui/resource-teardown') return post({ jsonrpc: '2.0', id: m.id, result: {} });
    post({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'Method not found: ' + m.method } });
  }

  function onNotification(method: string, params: Json) {
    if (method === 'ui/notifications/tool-input') showInput(params.arguments || {});
    else if (method === 'ui/notifications/tool-result') showResult(params);
    else if (method === 'ui/notifications/tool-cancelled') showStatus('The tool call was cancelled.');
    else if (method === 'ui/notifications/host-context-changed') applyContext(params);
  }

  // ---- host context: theme and style variables ----
  function applyContext(context: Json) {
    Object.assign(host.context, context);
    var root = document.documentElement;
    if (context.theme === 'dark' || context.theme === 'light') root.setAttribute('data-theme', context.theme);
    // An image still standing in for the preview follows the new theme.
    var image = state.image;
    if (image && !state.shown && image.theme !== theme()) readImage(image.owner, image.slug, image.name, state.seq);
    var variables = context.styles && context.styles.variables;
    if (variables) {
      Object.keys(variables).forEach(function (name) {
        if (name.indexOf('--') === 0 && typeof variables[name] === 'string') root.style.setProperty(name, variables[name]);
      });
    }
    // styles.css.fonts is left out on purpose: its @font-face rules would fetch fonts the default CSP forbids.
  }

  // ---- what the view shows ----
  function showStatus(text: string) { el('status').textContent = text; el('status').hidden = !text; }
  function showRefusal(text: string) {
    el('refusal').textContent = text;
    el('refusal').hidden = false;
    showStatus('');
  }
  function clear() {
    el('refusal').hidden = true;
    el('preview').hidden = true;
    el('preview').textContent = '';
    el('shot').hidden = true;
    el('shot').textContent = '';
    el('params').hidden = true;
    el('params-fields').textContent = '';
    applying(false);
    state.shown = false;
    state.image = null;
    state.query = '';
    state.page = null;
  }
  function theme(): string { return document.documentElement.getAttribute('data-theme') === 'dark' ? 'dark' : 'light'; }

  function textOf(result: Json): string {
    return (result.content || []).filter(function (c: Json) { return c && c.type === 'text'; }).map(function (c: Json) { return c.text; }).join('\n');
  }
  function jsonBlock(text: string): Json {
    var match = /(?:^|\n)BEGIN_JSON\n([\s\S]*)\nEND_JSON\s*$/.exec(text || '');
    if (!match) return null;
    try { return JSON.parse(match[1]); } catch (e) { return null; }
  }
  function short(id: string) { return String(id).slice(0, 8); }
  function slugFromArgs(args: Json): string | null {
    if (!args) return null;
    if (typeof args.slug === 'string') return args.slug;
    return typeof args.path === 'string' ? args.path.split('/')[0] : null;
  }
  function ownerFromUrl(url: string | null): string | null {
    try {
      var hostName = new URL(url as string).host.toLowerCase();
      var suffix = ('.' + CONFIG.dashboardDomain).toLowerCase();
      if (hostName.length > suffix.length && hostName.slice(-suffix.length) === suffix) return hostName.slice(0, -suffix.length);
    } catch (e) { /* not a URL: fall back to the arguments */ }
    return state.args && typeof state.args.workspace === 'string' ? state.args.workspace : null;
  }
  function versionLabel(data: Json, dashboard: Json): string | null {
    var v = data.version;
    if (v && v.version_id) return 'version #' + v.seq + ' (' + short(v.version_id) + (v.current ? ', current' : '') + ')';
    var id = data.version_id || (dashboard && dashboard.current_version_id);
    return id ? 'version ' + short(id) : null;
  }

  function showHeader(name: string, owner: string | null, version: string | null, visibility: string | null, url: string | null) {
    el('head').hidden = false;
    el('name').textContent = name;
    el('meta').textContent = [owner ? 'by ' + owner : null, version, visibility].filter(Boolean).join(' \u00b7 ');
    state.url = url;
    el('url').textContent = shownUrl() || '';
    (el('open') as HTMLButtonElement).disabled = !url;
  }
  /** The dashboard's URL with the chosen values: the address that opens what the view shows. */
  function shownUrl(): string | null {
    return state.url && state.query ? state.url + '?' + state.query : state.url;
  }

  function showInput(args: Json) {
    state.args = args;
    var slug = slugFromArgs(args);
    if (el('head').hidden) showStatus(slug ? 'Loading \u201c' + slug + '\u201d\u2026' : 'Loading the dashboard\u2026');
  }

  function showResult(result: Json) {
    var seq = ++state.seq;
    clear();
    var text = textOf(result);
    if (result.isError) {
      el('head').hidden = true;
      return showRefusal(text || 'The dashboard could not be shown.');
    }
    var data = result.structuredContent || jsonBlock(text);
    if (!data) return showRefusal(text || 'The tool answered nothing to show.');
    var d = data.dashboard || null;
    var url = (d && d.url) || data.url || null;
    var slug = (d && d.slug) || data.slug || slugFromArgs(state.args);
    var owner = (d && d.owner) || ownerFromUrl(url);
    showHeader(d ? d.name : slug, owner, versionLabel(data, d), d ? d.visibility : null, url);
    if (!d && slug && !data.dry_run) fillName(slug, owner, data, seq);
    if (data.dry_run) return showStatus(text.split('\n')[0]);
    var v = data.version;
    var body = data.body;
    if (v && !v.current && body && body.encoding === 'utf8' && /\.html?$/i.test(body.filename)) {
      renderPreview('text/html', body.content);
      return showStatus('Preview of version #' + v.seq + ' (not the current one); its scripts do not run here.');
    }
    if (!owner || !slug) return showStatus('No preview: the answer does not say whose dashboard this is.');
    state.page = { owner: owner, slug: slug };
    readImage(owner, slug, d ? d.name : slug, seq);
    readPage(owner, slug, seq);
  }

  /** get_dashboard_version does not answer the dashboard's name: ask get_dashboard through the host. */
  function fillName(slug: string, owner: string | null, data: Json, seq: number) {
    if (!host.capabilities.serverTools) return;
    var args: Json = { slug: slug };
    if (state.args && typeof state.args.workspace === 'string') args.workspace = state.args.workspace;
    request('tools/call', { name: 'get_dashboard', arguments: args }).then(function (r) {
      var got = r && !r.isError ? r.structuredContent || jsonBlock(textOf(r)) : null;
      if (seq !== state.seq || !got || !got.dashboard) return;
      var d = got.dashboard;
      showHeader(d.name, d.owner || owner, versionLabel(data, d), d.visibility, d.url);
    }, function () { /* the slug stays as the title: the name is a nicety, the preview does not depend on it */ });
  }

  /**
   * The dashboard's PNG in the view's theme, through the host like the page (decision 0232): shown while the
   * live preview loads, and dropped once the preview is there.
   */
  function readImage(owner: string, slug: string, name: string, seq: number) {
    if (!host.capabilities.serverResources) return;
    var asked = theme();
    state.image = { owner: owner, slug: slug, name: name, theme: asked };
    var query = new URLSearchParams(state.query);
    if (asked === 'dark') query.set('theme', 'dark');
    var uri = CONFIG.serviceName + '://' + owner + '/_image/' + slug + '.png' + (query.toString() ? '?' + query.toString() : '');
    request('resources/read', { uri: uri }).then(function (r) {
      var c = r.contents && r.contents[0];
      if (seq !== state.seq || state.shown || !state.image || state.image.theme !== asked) return;
      if (!c || c.mimeType !== 'image/png' || typeof c.blob !== 'string') return;
      var img = document.createElement('img');
      img.alt = name;
      img.src = 'data:image/png;base64,' + c.blob;
      el('shot').replaceChildren(img);
      el('shot').hidden = false;
      if (el('refusal').hidden) showStatus('The dashboard\u2019s image; the live preview is loading\u2026');
    }, function () { /* the image only stands in: the preview, or its refusal, says the rest */ });
  }

  /** The current page through the host, for the chosen values when there are some (the page's query string). */
  function readPage(owner: string, slug: string, seq: number) {
    if (!host.capabilities.serverResources) return showStatus('This host cannot read the page for a preview; open the dashboard instead.');
    var query = state.query;
    showStatus(query ? 'Drawing the dashboard for these values\u2026' : 'Loading the preview\u2026');
    request('resources/read', { uri: CONFIG.serviceName + '://' + owner + '/' + slug + (query ? '?' + query : '') }).then(function (r) {
      if (seq !== state.seq) return;
      applying(false);
      var c = r.contents && r.contents[0];
      if (!c) return showStatus('The page is empty.');
      el('refusal').hidden = true;
      renderPreview(c.mimeType || 'text/html', c.text, c.blob, true);
      state.shown = true;
      el('shot').hidden = true;
      el('shot').textContent = '';
      showStatus(query ? 'Preview of the published page for the chosen values; its scripts do not run here.' : 'Preview of the published page; its scripts do not run here.');
    }, function (e) {
      if (seq !== state.seq) return;
      applying(false);
      // A preview of other values must not stand beside a refusal for these.
      if (query) el('preview').hidden = true;
      showRefusal('No preview: ' + e.message);
    });
  }

  // ---- the parameter controls: built once per dashboard shown, from the page's own form ----
  function showParams(groups: DASHPUB_PARAMS.Group[]) {
    el('params-fields').replaceChildren(...DASHPUB_PARAMS.build(groups));
    el('params').hidden = false;
  }

  /** While values are being drawn, Apply waits: each new choice may spend one of the dashboard's draws. */
  function applying(busy: boolean) {
    (el('apply') as HTMLButtonElement).disabled = busy;
    el('preview').setAttribute('aria-busy', String(busy));
  }

  /** Reads the page again for the chosen values; the preview shown stays until the new one replaces it. */
  function applyValues() {
    var page = state.page;
    if (!page || (el('apply') as HTMLButtonElement).disabled) return;
    applying(true);
    state.query = DASHPUB_PARAMS.queryOf(DASHPUB_PARAMS.pairsOf(el('params-fields')));
    el('url').textContent = shownUrl() || '';
    readPage(page.owner, page.slug, ++state.seq);
  }
  el('apply').addEventListener('click', applyValues);
  el('params-fields').addEventListener('keydown', function (event) {
    if ((event as KeyboardEvent).key === 'Enter' && (event.target as Element).localName === 'input') applyValues();
  });

  // ---- the preview: the page's markup parsed inertly, cleaned by allowlist, shown in a shadow root ----
  // The holder has contain: strict (view CSS), so nothing in the page paints outside its box or over the controls.
  var PAGE_BASE_CSS = ':host{all:initial;display:block}' +
    '.dp-root{display:block;position:relative;contain:content;overflow:hidden;color-scheme:light;background:#fff;color:#000;' +
    'font-family:serif;font-size:16px;line-height:normal}' +
    '.dp-body{display:block;margin:8px}';
  var MAX_PREVIEW_HEIGHT = 700;
  var baseSheet: CSSStyleSheet | null = null;

  /** `current`: the dashboard's current page, whose parameter form (if any) becomes the view's controls. */
  function renderPreview(mimeType: string, text: unknown, blob?: unknown, current?: boolean) {
    var preview = el('preview');
    preview.textContent = '';
    var type = String(mimeType).split(';')[0].trim().toLowerCase();
    if (typeof text === 'string' && (type === 'text/html' || type === 'application/xhtml+xml')) renderHtml(preview, text, current === true);
    else if (typeof blob === 'string' && /^image\/(png|jpeg|gif|webp|avif)$/.test(type)) {
      var img = document.createElement('img');
      img.alt = 'The dashboard file';
      img.src = 'data:' + type + ';base64,' + blob;
      preview.appendChild(img);
    } else if (typeof text === 'string') {
      var pre = document.createElement('pre');
      pre.textContent = text;
      preview.appendChild(pre);
    } else {
      return showStatus('No preview for ' + type + ' files; open the dashboard instead.');
    }
    preview.hidden = false;
  }

  function renderHtml(preview: HTMLElement, html: string, current: boolean) {
    var doc = new DOMParser().parseFromString(html, 'text/html');
    // A spec page's form cannot submit from here: the view's own controls stand in for it.
    var groups = html.indexOf(CONFIG.specPageOpening) === 0 ? DASHPUB_PARAMS.takeForm(doc) : null;
    if (current && groups && el('params').hidden) showParams(groups);
    var pageSheet = DASHPUB_SANITISER.cleanPage(doc);
    if (!baseSheet) { baseSheet = new CSSStyleSheet(); baseSheet.replaceSync(PAGE_BASE_CSS); }
    var holder = document.createElement('div');
    holder.className = 'page-box';
    holder.id = 'page-box';
    preview.appendChild(holder);
    var shadow = holder.attachShadow({ mode: 'open' });
    shadow.adoptedStyleSheets = [baseSheet, pageSheet];
    var root = document.createElement('div');
    var body = document.createElement('div');
    copyAttributes(doc.documentElement, root, 'dp-root');
    copyAttributes(doc.body, body, 'dp-body');
    while (doc.body && doc.body.firstChild) body.appendChild(document.adoptNode(doc.body.firstChild));
    root.appendChild(body);
    shadow.appendChild(root);
    fitHolder(holder, root);
    shadow.addEventListener('click', function (event) { followLink(event, shadow); });
    // A middle click would open a tab behind the host's back where the sandbox allows popups.
    shadow.addEventListener('auxclick', function (event) { if (linkIn(event)) event.preventDefault(); });
    shadow.addEventListener('submit', function (event) { event.preventDefault(); });
  }

  /** Size containment ignores the content: the holder's height follows it, up to a scrolling maximum. */
  function fitHolder(holder: HTMLElement, root: HTMLElement) {
    var fit = function () { holder.style.height = Math.min(MAX_PREVIEW_HEIGHT, Math.ceil(root.getBoundingClientRect().height)) + 'px'; };
    fit();
    if (window.ResizeObserver) new ResizeObserver(fit).observe(root);
  }

  function copyAttributes(from: Element | null, to: Element, className: string) {
    to.className = className;
    if (!from) return;
    ['lang', 'dir', 'style', 'id'].forEach(function (name) { if (from.hasAttribute(name)) to.setAttribute(name, from.getAttribute(name)!); });
    if (from.getAttribute('class')) to.className = className + ' ' + from.getAttribute('class');
  }

  /** Links in the preview never leave it: only in-page ones (the sanitiser keeps no other href) scroll. */
  function linkIn(event: Event): Element | null {
    var path = event.composedPath();
    for (var i = 0; i < path.length; i++) {
      var n = path[i] as Element;
      if (n && n.localName && /^(a|area)$/i.test(n.localName)) return n;
    }
    return null;
  }
  function followLink(event: Event, shadow: ShadowRoot) {
    var link = linkIn(event);
    if (!link) return;
    event.preventDefault();
    var href = link.getAttribute('href') || link.getAttributeNS(XLINK, 'href') || '';
    if (href.charAt(0) !== '#' || href.length < 2) return;
    var id;
    try { id = decodeURIComponent(href.slice(1)); } catch (e) { return; }
    var target = shadow.getElementById(id);
    if (target) target.scrollIntoView();
  }

  /** Only the view's own button asks the host to open a link: the dashboard's canonical URL. */
  function openLink(url: string | null) {
    if (!url) return;
    request('ui/open-link', { url: url }).then(function (r) {
      if (r && r.isError) showStatus('The host did not open ' + url + '.');
    }, function (e) { showStatus('The host did not open ' + url + ': ' + e.message); });
  }
  el('open').addEventListener('click', function () { openLink(shownUrl()); });

  // ---- size reports and the handshake ----
  var lastHeight = 0;
  function reportSize() {
    var height = Math.ceil(el('app').getBoundingClientRect().height);
    if (height === lastHeight) return;
    lastHeight = height;
    notify('ui/notifications/size-changed', { height: height });
  }

  if (window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches) document.documentElement.setAttribute('data-theme', 'dark');
  request('ui/initialize', {
    appInfo: { name: CONFIG.serviceName + ' dashboard view', version: '1.0.0' },
    appCapabilities: { availableDisplayModes: ['inline'] },
    protocolVersion: PROTOCOL_VERSION,
  }).then(function (result) {
    host.capabilities = result.hostCapabilities || {};
    applyContext(result.hostContext || {});
    notify('ui/notifications/initialized', {});
    if (window.ResizeObserver) new ResizeObserver(reportSize).observe(el('app'));
    reportSize();
  }, function (e) {
    showRefusal('The host did not start the view: ' + e.message);
  });
}
