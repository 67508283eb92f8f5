import { createHash } from 'node:crypto';
import type { ClientSetup } from '../../client-kit/client-setup.js';
import { Html, html, layout } from './html.js';

export const CONNECT_PATH = '/connect';
export const CLIENT_KIT_PATH = '/connect/client-kit.zip';

/**
 * The one script of the app: it reveals the Copy buttons and copies a snippet's text. Without it
 * (or without the clipboard API, which needs https or localhost) the buttons stay hidden and every
 * snippet is still plain selectable text.
 */
const COPY_SCRIPT =
  "document.querySelectorAll('button[data-copy]').forEach(function(b){if(!navigator.clipboard)return;b.hidden=false;" +
  "b.addEventListener('click',function(){navigator.clipboard.writeText(document.getElementById(b.dataset.copy).textContent).then(function(){" +
  "b.textContent='Copied';setTimeout(function(){b.textContent='Copy'},2000)})})})";

export const COPY_SCRIPT_HASH = `'sha256-${createHash('sha256').update(COPY_SCRIPT).digest('base64')}'`;

interface Snippet {
  id: string;
  /** What the snippet is, e.g. a file name; also the Copy button's accessible name. */
  label: string;
  text: string;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

function snippet(s: Snippet): Html {
  return html`<div class="snippet-head"><span class="small muted">${s.label}</span>
<button type="button" class="copy" data-copy="${s.id}" aria-label="Copy: ${s.label}" hidden>Copy</button></div>
<pre id="${s.id}" tabindex="0">${s.text}</pre>`;
}

function section(id: string, title: string, intro: Html, snippets: Snippet[], after?: Html | null): Html {
  return html`<section aria-labelledby="${id}"><h2 id="${id}">${title}</h2>${intro}${snippets.map(snippet)}${after ?? null}</section>`;
}

function pluginSection(setup: ClientSetup): Html {
  return html`<h3>As a plugin</h3>
<p>The plugin adds the server and a skill that tells Claude which tool fits which task. <a href="${CLIENT_KIT_PATH}" download>Download the Claude Code plugin (.zip)</a>, unzip it, and from the folder that holds it run:</p>
${snippet({ id: 'claude-code-plugin', label: 'Terminal: install the plugin', text: `${setup.claudeCodePlugin.addMarketplace}\n${setup.claudeCodePlugin.install}` })}
<p class="note">An operator can write the same kit with <code>dashpub client-kit --out DIR</code>.</p>`;
}

/** One section per client: how to add the server to it. */
function clientSections(setup: ClientSetup): Html {
  const name = setup.serverName;
  return html`${section(
  'claude-code',
  'Claude Code',
  html`<p>Run in a terminal, then type <code>/mcp</code> in Claude Code and pick <code>${name}</code> to sign in.</p>`,
  [
    { id: 'claude-code-command', label: 'Terminal: this project only', text: setup.claudeCode.command },
    { id: 'claude-code-user', label: 'Terminal: all your projects', text: setup.claudeCode.userScopeCommand },
    { id: 'claude-code-project', label: '.mcp.json (shared with the project)', text: json(setup.claudeCode.projectConfig) },
  ],
  setup.pluginProblem ? null : pluginSection(setup),
)}
${section(
  'claude-desktop',
  'Claude Desktop and claude.ai',
  html`<p>Open <strong>Settings → Connectors</strong>, choose <strong>Add custom connector</strong>, name it <code>${name}</code> and paste the MCP URL. Claude reaches the server from Anthropic's cloud, so it must be reachable from the internet.</p>`,
  [{ id: 'claude-desktop-url', label: 'Remote MCP server URL', text: setup.mcpUrl }],
  html`<p>For a server only your computer can reach, bridge it locally in <code>claude_desktop_config.json</code> (Settings → Developer → Edit Config; needs Node.js):</p>
${snippet({ id: 'claude-desktop-config', label: 'claude_desktop_config.json', text: json(setup.claudeDesktop.bridgeConfig) })}`,
)}
${section(
  'cursor',
  'Cursor',
  html`<p>Add to <code>.cursor/mcp.json</code> in a project, or <code>~/.cursor/mcp.json</code> for all projects, then press <strong>Connect</strong> next to <code>${name}</code> in Cursor's MCP settings.</p>`,
  [{ id: 'cursor-config', label: '.cursor/mcp.json', text: json(setup.cursor.config) }],
)}
${section(
  'vscode',
  'VS Code',
  html`<p>Add to <code>.vscode/mcp.json</code> in a workspace (or run <strong>MCP: Open User Configuration</strong> for all of them), then start the server from the file and sign in when asked.</p>`,
  [
    { id: 'vscode-config', label: '.vscode/mcp.json', text: json(setup.vscode.config) },
    { id: 'vscode-command', label: 'Terminal (user configuration)', text: setup.vscode.command },
  ],
)}
${section(
  'chatgpt',
  'ChatGPT',
  html`<p>In <strong>Settings → Apps &amp; Connectors → Advanced settings</strong>, turn on <strong>Developer mode</strong>. Then create a connector: name it <code>${name}</code>, paste the MCP URL, choose <strong>OAuth</strong> authentication and confirm. ChatGPT also reaches the server from the internet.</p>`,
  [{ id: 'chatgpt-url', label: 'MCP server URL', text: setup.mcpUrl }],
)}
${section(
  'inspector',
  'MCP Inspector',
  html`<p>To try the tools by hand: start the Inspector, choose the <strong>Streamable HTTP</strong> transport, paste the MCP URL and press <strong>Connect</strong>; it runs the same sign-in.</p>`,
  [
    { id: 'inspector-command', label: 'Terminal: start the Inspector', text: setup.inspector.command },
    { id: 'inspector-url', label: 'Inspector URL', text: setup.mcpUrl },
  ],
)}`;
}

export function connectPage(input: { displayName: string; setup: ClientSetup }): string {
  const { setup } = input;
  const name = setup.serverName;
  const serverName = html`<code>${name}</code>`;
  const body = html`<h1>Connect an AI client</h1>
<p class="muted">Add ${input.displayName} to any assistant that speaks MCP. There is no key to copy: the client sends you here to sign in once.</p>
<dl>
<div><dt>MCP URL</dt><dd><code id="mcp-url">${setup.mcpUrl}</code></dd></div>
<div><dt>Server name</dt><dd>${serverName}<p class="note">Tools then show as <code>${setup.toolPrefix}&lt;tool&gt;</code>${setup.pluginProblem ? null : html`, or <code>${setup.pluginToolPrefix}&lt;tool&gt;</code> through the Claude Code plugin`}.</p></dd></div>
</dl>
<section aria-labelledby="expect"><h2 id="expect">What to expect</h2>
<ol>
<li>Add the server with one of the setups below and use it (or press the client's Connect or Authenticate).</li>
<li>Your browser opens the consent screen of ${input.displayName} (<code>${setup.consentUrl}</code>), which names the client and where it sends you back.</li>
<li>Sign in, choose your personal account or one workspace, and press <strong>Allow access</strong>. The client can act only on what you choose.</li>
<li>The client lists the tools. It renews its access by itself; you can revoke it at any time on your <a href="/account">account page</a>.</li>
</ol></section>
${clientSections(setup)}
<footer class="note"><a href="/account">Your account</a> · <a href="/sign-in">Sign in</a></footer>
<script>${new Html(COPY_SCRIPT)}</script>`;
  return layout({ title: 'Connect an AI client', displayName: input.displayName, body, wide: true });
}
