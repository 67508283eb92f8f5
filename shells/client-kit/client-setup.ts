import type { Settings } from '../../application/ports/settings.js';
import { invalid } from '../../domain/errors.js';
import { SERVER_VERSION } from '../server-version.js';
import { skillText, SKILL_NAME } from './skill.js';

export type ClientKitSettings = Pick<Settings, 'baseUrl' | 'appUrl' | 'serviceName'>;

/**
 * Everything a person needs to add this instance to an AI client, derived from settings only:
 * the `/connect` page, `dashpub client-kit` and the kit download all read it from here, so no
 * host is ever written twice. Each client's config shape follows its own documentation (sources
 * in docs/decisions/0025-client-setup.md).
 */
export interface ClientSetup {
  /** The MCP server's name in every client: SERVICE_NAME, so tools show as `mcp__<name>__<tool>`. */
  serverName: string;
  mcpUrl: string;
  consentUrl: string;
  accountUrl: string;
  connectUrl: string;
  /** `mcp__<server>__` and, through the Claude Code plugin, `mcp__plugin_<plugin>_<server>__`. */
  toolPrefix: string;
  pluginToolPrefix: string;
  plugin: { name: string; marketplace: string; directory: string; skill: string };
  /** Why this SERVICE_NAME cannot name a Claude Code plugin, or null when it can. */
  pluginProblem: string | null;
  claudeCode: { command: string; userScopeCommand: string; projectConfig: McpServersConfig };
  claudeCodePlugin: { addMarketplace: string; install: string };
  claudeDesktop: { bridgeConfig: McpServersConfig };
  cursor: { config: McpServersConfig };
  vscode: { config: VsCodeConfig; command: string };
  inspector: { command: string };
}

export interface McpServersConfig {
  mcpServers: Record<string, Record<string, unknown>>;
}

export interface VsCodeConfig {
  servers: Record<string, { type: 'http'; url: string }>;
}

/** Claude Code's plugin and marketplace names are kebab-case. */
const KEBAB_CASE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** A marketplace name unique to this instance: two instances both called `service` can be added side by side. */
function marketplaceName(serviceName: string, baseUrl: string): string {
  const host = new URL(baseUrl).host.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return `${serviceName}-${host}`;
}

export function clientSetup(settings: ClientKitSettings): ClientSetup {
  const name = settings.serviceName;
  const mcpUrl = `${settings.baseUrl}/mcp`;
  const marketplace = marketplaceName(name, settings.baseUrl);
  const kitDirectory = kitDirectoryName(settings);
  return {
    serverName: name,
    mcpUrl,
    consentUrl: `${settings.appUrl}/consent`,
    accountUrl: `${settings.appUrl}/account`,
    connectUrl: `${settings.appUrl}/connect`,
    toolPrefix: `mcp__${name}__`,
    pluginToolPrefix: `mcp__plugin_${name}_${name}__`,
    plugin: { name, marketplace, directory: `plugins/${name}`, skill: SKILL_NAME },
    pluginProblem: KEBAB_CASE.test(name)
      ? null
      : `SERVICE_NAME "${name}" cannot name a Claude Code plugin: use lowercase letters, digits and single dashes`,
    claudeCode: {
      command: `claude mcp add --transport http ${name} ${mcpUrl}`,
      userScopeCommand: `claude mcp add --transport http --scope user ${name} ${mcpUrl}`,
      projectConfig: { mcpServers: { [name]: { type: 'http', url: mcpUrl } } },
    },
    claudeCodePlugin: {
      addMarketplace: `claude plugin marketplace add ./${kitDirectory}`,
      install: `claude plugin install ${name}@${marketplace}`,
    },
    claudeDesktop: { bridgeConfig: { mcpServers: { [name]: { command: 'npx', args: ['-y', 'mcp-remote', mcpUrl] } } } },
    cursor: { config: { mcpServers: { [name]: { url: mcpUrl } } } },
    vscode: {
      config: { servers: { [name]: { type: 'http', url: mcpUrl } } },
      command: `code --add-mcp '${JSON.stringify({ name, type: 'http', url: mcpUrl })}'`,
    },
    inspector: { command: 'npx @modelcontextprotocol/inspector' },
  };
}

export interface KitFile {
  /** Relative to the kit's root, with `/` separators. */
  path: string;
  content: string;
}

/** The download's top folder, and the directory the README's install commands name. */
export const kitDirectoryName = (settings: ClientKitSettings) => `${settings.serviceName}-client-kit`;

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/**
 * The Claude Code plugin marketplace for this instance, as files of a folder called `directoryName`: one marketplace listing one plugin named
 * after the service, whose `.mcp.json` declares the HTTP server of the same name. Installed, its
 * tools are `mcp__plugin_<service>_<service>__<tool>`.
 */
export function clientKitFiles(settings: ClientKitSettings, directoryName = kitDirectoryName(settings)): KitFile[] {
  const setup = clientSetup(settings);
  if (setup.pluginProblem) throw invalid(setup.pluginProblem);
  const { name, marketplace, directory } = setup.plugin;
  const description = `Publish and manage dashboards on ${name} (${settings.appUrl}) from Claude Code.`;
  const owner = { name, url: settings.appUrl };
  return [
    {
      path: '.claude-plugin/marketplace.json',
      content: json({
        name: marketplace,
        owner,
        metadata: { description: `The ${name} plugin for this instance (${settings.baseUrl}).`, version: SERVER_VERSION },
        plugins: [{ name, source: `./${directory}`, description, version: SERVER_VERSION }],
      }),
    },
    {
      path: `${directory}/.claude-plugin/plugin.json`,
      content: json({ name, version: SERVER_VERSION, description, author: owner, homepage: setup.connectUrl }),
    },
    { path: `${directory}/.mcp.json`, content: json({ mcpServers: { [name]: { type: 'http', url: setup.mcpUrl } } }) },
    { path: `${directory}/skills/${SKILL_NAME}/SKILL.md`, content: skillText(setup, settings.appUrl) },
    { path: 'README.md', content: readme(setup, directoryName) },
  ];
}

function readme(setup: ClientSetup, kitDirectory: string): string {
  return `# ${setup.serverName} for Claude Code

A Claude Code plugin marketplace for the ${setup.serverName} instance at ${setup.mcpUrl}.

Install (from the folder that holds \`${kitDirectory}/\`):

    claude plugin marketplace add ./${kitDirectory}
    claude plugin install ${setup.plugin.name}@${setup.plugin.marketplace}

Or inside Claude Code: \`/plugin marketplace add ./${kitDirectory}\`, then \`/plugin install ${setup.plugin.name}@${setup.plugin.marketplace}\`.

When Claude Code says the \`${setup.serverName}\` server needs authentication, run \`/mcp\` and pick it: your
browser opens at ${setup.consentUrl}. Sign in, choose your personal account or a workspace, and
press Allow access. The tools then show as
\`${setup.pluginToolPrefix}<tool>\`; the skill \`/${setup.plugin.name}:${setup.plugin.skill}\` tells Claude
which tool fits which task. Revoke access at any time on ${setup.accountUrl}.

Other clients: ${setup.connectUrl}
`;
}
