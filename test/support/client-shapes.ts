import { expect } from 'chai';
import { shapeErrors, type Shape } from './json-shape.js';

/**
 * Each client's documented config shape, written down as data (sources in
 * docs/decisions/0025-client-setup.md), and one check of a whole Claude Code client kit against them.
 */

const HTTP_URL = /^https?:\/\/[^\s"']+$/;
const KEBAB = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;
const url: Shape = { type: 'string', pattern: HTTP_URL };
const headers: Shape = { type: 'object', additionalProperties: { type: 'string' } };
const servers = (server: Shape): Shape => ({ type: 'object', minProperties: 1, additionalProperties: server });

/** Claude Code: project `.mcp.json` and a plugin's `.mcp.json`, remote server over Streamable HTTP. */
export const CLAUDE_CODE_MCP_JSON: Shape = {
  type: 'object',
  required: ['mcpServers'],
  properties: {
    mcpServers: servers({ type: 'object', required: ['type', 'url'], properties: { type: { const: 'http' }, url, headers }, additionalProperties: false }),
  },
  additionalProperties: false,
};

/** Cursor: `.cursor/mcp.json`, a remote server is an entry with a `url`. */
export const CURSOR_MCP_JSON: Shape = {
  type: 'object',
  required: ['mcpServers'],
  properties: { mcpServers: servers({ type: 'object', required: ['url'], properties: { url, headers }, additionalProperties: false }) },
  additionalProperties: false,
};

/** VS Code: `.vscode/mcp.json` has `servers` (not `mcpServers`), each remote one with `type` http. */
export const VSCODE_MCP_JSON: Shape = {
  type: 'object',
  required: ['servers'],
  properties: {
    servers: servers({ type: 'object', required: ['type', 'url'], properties: { type: { enum: ['http', 'sse'] }, url, headers }, additionalProperties: false }),
    inputs: { type: 'array' },
  },
  additionalProperties: false,
};

/** VS Code's `code --add-mcp <json>`: one server with its name inside. */
export const VSCODE_ADD_MCP_ARGUMENT: Shape = {
  type: 'object',
  required: ['name', 'type', 'url'],
  properties: { name: { type: 'string' }, type: { const: 'http' }, url },
  additionalProperties: false,
};

/** Claude Desktop: `claude_desktop_config.json` runs local (stdio) commands only; `mcp-remote` bridges. */
export const CLAUDE_DESKTOP_CONFIG: Shape = {
  type: 'object',
  required: ['mcpServers'],
  properties: {
    mcpServers: servers({
      type: 'object',
      required: ['command', 'args'],
      properties: { command: { type: 'string' }, args: { type: 'array', items: { type: 'string' } }, env: headers },
      additionalProperties: false,
    }),
  },
  additionalProperties: false,
};

const person: Shape = { type: 'object', required: ['name'], properties: { name: { type: 'string' }, email: { type: 'string' }, url }, additionalProperties: false };

/** Claude Code: `.claude-plugin/marketplace.json` at the marketplace root. */
export const CLAUDE_MARKETPLACE_JSON: Shape = {
  type: 'object',
  required: ['name', 'owner', 'plugins'],
  properties: {
    name: { type: 'string', pattern: KEBAB },
    owner: person,
    metadata: { type: 'object', properties: { description: { type: 'string' }, version: { type: 'string', pattern: SEMVER }, pluginRoot: { type: 'string' } }, additionalProperties: false },
    plugins: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['name', 'source'],
        properties: { name: { type: 'string', pattern: KEBAB }, source: { type: 'string', pattern: /^\.\/[^\s]+$/ }, description: { type: 'string' }, version: { type: 'string', pattern: SEMVER } },
        additionalProperties: false,
      },
    },
  },
  additionalProperties: false,
};

/** Claude Code: a plugin's `.claude-plugin/plugin.json` (only `name` is required). */
export const CLAUDE_PLUGIN_JSON: Shape = {
  type: 'object',
  required: ['name'],
  properties: { name: { type: 'string', pattern: KEBAB }, version: { type: 'string', pattern: SEMVER }, description: { type: 'string' }, author: person, homepage: url },
  additionalProperties: false,
};

/** Agent skills: SKILL.md frontmatter. */
export const SKILL_FRONTMATTER: Shape = {
  type: 'object',
  required: ['name', 'description'],
  properties: { name: { type: 'string', pattern: /^[a-z0-9-]{1,64}$/ }, description: { type: 'string', maxLength: 1024 } },
  additionalProperties: false,
};

export function expectShape(value: unknown, shape: Shape, what: string): void {
  const errors = shapeErrors(value, shape);
  expect(errors, `${what}: ${errors.join('; ')}`).to.deep.equal([]);
}

/** The frontmatter of a SKILL.md: `key: value` lines, values plain or JSON-quoted. */
export function frontmatter(markdown: string): Record<string, string> {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(markdown);
  expect(match, 'SKILL.md starts with a frontmatter block').to.not.equal(null);
  const fields: Record<string, string> = {};
  for (const line of match![1]!.split('\n')) {
    const at = line.indexOf(': ');
    const raw = line.slice(at + 2);
    fields[line.slice(0, at)] = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw;
  }
  return fields;
}

/**
 * Checks a kit (relative path -> content) installs as a Claude Code plugin in shape: the files,
 * names and JSON keys, and the tool names it yields. Answers the `.mcp.json` server URL.
 */
export function checkClientKit(files: Map<string, string>, expected: { serviceName: string; mcpUrl: string; toolNames: readonly string[] }): string {
  const name = expected.serviceName;
  const read = (path: string) => {
    expect(files.has(path), `${path} is in the kit`).to.equal(true);
    return JSON.parse(files.get(path)!) as Record<string, any>;
  };
  const marketplace = read('.claude-plugin/marketplace.json');
  expectShape(marketplace, CLAUDE_MARKETPLACE_JSON, 'marketplace.json');
  expect(marketplace.plugins.map((p: { name: string }) => p.name)).to.deep.equal([name]);
  const pluginDir = (marketplace.plugins[0].source as string).replace(/^\.\//, '');
  const plugin = read(`${pluginDir}/.claude-plugin/plugin.json`);
  expectShape(plugin, CLAUDE_PLUGIN_JSON, 'plugin.json');
  expect(plugin.name).to.equal(name);
  const mcp = read(`${pluginDir}/.mcp.json`);
  expectShape(mcp, CLAUDE_CODE_MCP_JSON, 'plugin .mcp.json');
  expect(Object.keys(mcp.mcpServers)).to.deep.equal([name]);
  expect(mcp.mcpServers[name].url).to.equal(expected.mcpUrl);

  // Claude Code names a plugin's tools mcp__plugin_<plugin>_<server>__<tool>.
  const prefix = `mcp__plugin_${plugin.name}_${Object.keys(mcp.mcpServers)[0]}__`;
  if (name === 'service') expect(prefix).to.equal('mcp__plugin_service_service__');

  const skills = [...files.keys()].filter((path) => path.startsWith(`${pluginDir}/skills/`));
  expect(skills).to.have.length(1);
  expect(skills[0]).to.match(new RegExp(`^${pluginDir}/skills/[a-z0-9-]+/SKILL\\.md$`));
  const skill = files.get(skills[0]!)!;
  const fields = frontmatter(skill);
  expectShape(fields, SKILL_FRONTMATTER, 'SKILL.md frontmatter');
  expect(skills[0]).to.equal(`${pluginDir}/skills/${fields.name}/SKILL.md`);
  for (const tool of expected.toolNames) expect(skill, tool).to.contain(`\`${prefix}${tool}\``);
  const named = [...skill.matchAll(/`mcp__plugin_[a-z0-9-]+_[a-z0-9-]+__([a-z_]+)`/g)].map((m) => m[1]);
  expect([...new Set(named)].sort()).to.deep.equal([...expected.toolNames].sort());
  return mcp.mcpServers[name].url as string;
}
