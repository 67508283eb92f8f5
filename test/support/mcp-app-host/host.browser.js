// The MCP Apps host harness's page script (plain browser JavaScript, bundled by esbuild in
// test/support/mcp-app-host.ts). A web host as the extension describes it: the MCP client talks to the
// real server; the view runs inside a sandbox proxy on another origin; the extension's own AppBridge
// speaks to it. Everything the view asks of the host is recorded on window.harness for the test.
import { AppBridge, PostMessageTransport, getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const harness = (window.harness = { openedLinks: [], sizes: [], initialized: 0, bridge: null, frame: null });

async function connect(token) {
  const client = new Client({ name: 'dashpub-mcp-app-harness', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', location.origin), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

/**
 * Calls one tool on the real server and shows its answer in the tool's view, the way a host does:
 * tools/list names the view, resources/read fetches it, the sandbox proxy loads it, the bridge answers
 * ui/initialize, then sends the tool's input and result. Resolves once the result was sent.
 */
window.runTool = async ({ token, sandboxUrl, name, args, theme }) => {
  const client = await connect(token);
  const { tools } = await client.listTools();
  const tool = tools.find((t) => t.name === name);
  const uri = tool && getToolUiResourceUri(tool);
  if (!uri) throw new Error(`tool ${name} declares no view`);
  const resource = (await client.readResource({ uri })).contents[0];
  const result = await client.callTool({ name, arguments: args });

  const frame = document.createElement('iframe');
  frame.title = 'Dashboard view';
  frame.setAttribute('sandbox', 'allow-scripts allow-same-origin');
  if (resource._meta?.ui?.prefersBorder) frame.className = 'bordered';
  frame.src = sandboxUrl;
  document.getElementById('stage').replaceChildren(frame);

  harness.hostContext = { theme, displayMode: 'inline', availableDisplayModes: ['inline'], platform: 'web', toolInfo: { tool } };
  const bridge = new AppBridge(
    client,
    { name: 'dashpub-harness', version: '1.0.0' },
    { openLinks: {}, serverTools: {}, serverResources: {}, logging: {} },
    { hostContext: harness.hostContext },
  );
  harness.bridge = bridge;
  harness.frame = frame;
  harness.initialized = 0;
  harness.sizes = [];
  bridge.onopenlink = async ({ url }) => {
    harness.openedLinks.push(url);
    return {};
  };
  bridge.onsizechange = ({ height }) => {
    harness.sizes.push(height);
    if (typeof height === 'number') frame.style.height = `${height}px`;
  };
  const proxyReady = new Promise((resolve) => (bridge.onsandboxready = () => resolve()));
  const initialized = new Promise((resolve) => (bridge.oninitialized = () => resolve(++harness.initialized)));
  await bridge.connect(new PostMessageTransport(frame.contentWindow, frame.contentWindow));
  await proxyReady;
  // A permissive sandbox on purpose (popups, forms): the view must contain the page itself.
  await bridge.sendSandboxResourceReady({ html: resource.text, sandbox: 'allow-scripts allow-same-origin allow-forms allow-popups' });
  await initialized;
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
  return { uri, mimeType: resource.mimeType, meta: resource._meta, result };
};

/** What a host does when the user switches theme. */
window.setTheme = (theme) => {
  harness.hostContext = { ...harness.hostContext, theme };
  harness.bridge.setHostContext(harness.hostContext);
};
